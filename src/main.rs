//! The `engram` binary: everything lives in the library; see `engram::cli`.

fn main() -> std::process::ExitCode {
    engram::cli::main()
}
