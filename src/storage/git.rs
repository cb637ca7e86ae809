//! git: reviewing the vault's history. Commits exactly the files a command
//! changed, and reads the past versions of a record.
//!
//! Everything runs the `git` executable in the vault folder, so the user's own
//! config, hooks and identity apply. Invariants: engram only ever stages and
//! commits the paths it was given (a commit with a pathspec, so whatever else is
//! staged or dirty stays exactly as it was); a vault outside a git work tree, a
//! missing `git`, or a command that changed nothing makes no commit and no error.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::clock::format_time;

/// Trailer naming the command that made a commit.
pub const TRAILER_OP: &str = "Engram-Op";
/// Trailer naming the session a commit's changes belong to.
pub const TRAILER_SESSION: &str = "Engram-Session";
/// Longest first line of a commit message, in characters.
const SUBJECT_MAX: usize = 72;

/// Who commits when git has no identity configured.
const FALLBACK_IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "engram"),
    ("GIT_AUTHOR_EMAIL", "engram@localhost"),
    ("GIT_COMMITTER_NAME", "engram"),
    ("GIT_COMMITTER_EMAIL", "engram@localhost"),
];

/// The line of git's error output that says what went wrong: the last
/// `fatal:` or `error:` line, else the last line (git's hints are left out).
fn telling_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
        .or(lines.last())
        .map_or_else(String::new, |l| l.to_string())
}

/// A git failure.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` could not be started.
    #[error("could not run git: {0}; install git or leave the vault out of git")]
    Missing(std::io::Error),
    /// A git command failed.
    #[error("`git {args}` failed in {dir}: {stderr}")]
    Failed {
        args: String,
        dir: PathBuf,
        stderr: String,
    },
}

/// One commit that touched a file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Version {
    /// Full commit hash.
    pub commit: String,
    /// Author date, RFC 3339 in UTC.
    pub date: String,
    /// First line of the commit message.
    pub subject: String,
    /// The diff of the file in this commit (only when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
}

/// A vault folder inside a git work tree.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The vault folder; every path given to a `Repo` is relative to it.
    dir: PathBuf,
}

impl Repo {
    /// The repository holding `dir`, or `None` when `dir` is not inside a git work
    /// tree or git is not installed.
    pub fn discover(dir: &Path) -> Option<Repo> {
        let repo = Repo {
            dir: dir.to_path_buf(),
        };
        match repo.git(&["rev-parse", "--is-inside-work-tree"], None) {
            Ok(out) if out.trim() == "true" => Some(repo),
            _ => None,
        }
    }

    /// Runs git in the vault folder with literal pathspecs; returns stdout.
    fn git(&self, args: &[&str], stdin: Option<&str>) -> Result<String, GitError> {
        self.git_with_env(args, stdin, &[])
    }

    /// [`Repo::git`] with extra environment variables.
    fn git_with_env(
        &self,
        args: &[&str],
        stdin: Option<&str>,
        env: &[(&str, &str)],
    ) -> Result<String, GitError> {
        let mut cmd = Command::new("git");
        cmd.envs(env.iter().copied());
        cmd.arg("--literal-pathspecs")
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(GitError::Missing)?;
        if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // A hook that never reads its input must not block us: ignore EPIPE.
            let _ = pipe.write_all(text.as_bytes());
        }
        let out = child.wait_with_output().map_err(GitError::Missing)?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                dir: self.dir.clone(),
                stderr: telling_line(&String::from_utf8_lossy(&out.stderr)),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Commits exactly `paths` (vault-relative; new, changed or deleted files)
    /// with `message`, leaving every other staged or dirty file as it was.
    /// Returns the new commit's hash, or `None` when none of the paths differs
    /// from the last commit.
    pub fn commit_paths(
        &self,
        paths: &[String],
        message: &str,
    ) -> Result<Option<String>, GitError> {
        let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        paths.sort_unstable();
        paths.dedup();
        let (present, gone): (Vec<&str>, Vec<&str>) =
            paths.iter().partition(|p| self.dir.join(p).exists());
        let mut pathspec: Vec<&str> = Vec::new();
        if !present.is_empty() {
            // A path the user's .gitignore excludes is theirs to keep out.
            let ignored = self.z_list(
                &[
                    "ls-files",
                    "-z",
                    "--others",
                    "--ignored",
                    "--exclude-standard",
                ],
                &present,
            )?;
            let addable: Vec<&str> = present
                .into_iter()
                .filter(|p| !ignored.contains(*p))
                .collect();
            if !addable.is_empty() {
                let mut args = vec!["add", "--"];
                args.extend(&addable);
                self.git(&args, None)?;
                pathspec.extend(addable);
            }
        }
        if !gone.is_empty() {
            // A deleted file is committed as a removal only if git knew it.
            let tracked = self.z_list(&["ls-files", "-z", "--cached"], &gone)?;
            pathspec.extend(gone.into_iter().filter(|p| tracked.contains(*p)));
        }
        if pathspec.is_empty() {
            return Ok(None);
        }
        let mut args = vec!["status", "--porcelain", "-z", "--untracked-files=no", "--"];
        args.extend(&pathspec);
        if self.git(&args, None)?.is_empty() {
            return Ok(None);
        }
        let mut args = vec!["commit", "--quiet", "--no-edit", "-F", "-", "--only", "--"];
        args.extend(&pathspec);
        // With no identity configured (a fresh machine, CI), git refuses to
        // commit; engram's own changes are then committed as engram.
        let env: &[(&str, &str)] = if self.git(&["var", "GIT_COMMITTER_IDENT"], None).is_ok()
            && self.git(&["var", "GIT_AUTHOR_IDENT"], None).is_ok()
        {
            &[]
        } else {
            &FALLBACK_IDENTITY
        };
        if let Err(e) = self.git_with_env(&args, Some(message), env) {
            // Leave the index as it was: what engram staged is unstaged again.
            let mut reset = vec!["reset", "--quiet", "--"];
            reset.extend(&pathspec);
            let _ = self.git(&reset, None);
            return Err(e);
        }
        Ok(Some(
            self.git(&["rev-parse", "HEAD"], None)?.trim().to_string(),
        ))
    }

    /// The NUL-separated file list a git command prints for `paths`.
    fn z_list(&self, args: &[&str], paths: &[&str]) -> Result<HashSet<String>, GitError> {
        let mut all = args.to_vec();
        all.push("--");
        all.extend(paths);
        Ok(self
            .git(&all, None)?
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect())
    }

    /// Every commit that touched `rel`, newest first, following renames; with
    /// `patch`, each with its diff of the file.
    pub fn history(&self, rel: &str, patch: bool) -> Result<Vec<Version>, GitError> {
        let format = "--format=%x1e%H%x1f%aI%x1f%s%x1f";
        let mut args = vec!["log", "--follow", "--no-color", format];
        if patch {
            args.push("-p");
        }
        args.extend(["--", rel]);
        let out = match self.git(&args, None) {
            Ok(out) => out,
            // A repository without any commit yet has no history.
            Err(GitError::Failed { stderr, .. })
                if stderr.contains("does not have any commits") =>
            {
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        Ok(parse_log(&out, patch))
    }

    /// The last commit that touched `rel`, if any.
    pub fn last_change(&self, rel: &str) -> Result<Option<Version>, GitError> {
        let args = [
            "log",
            "-1",
            "--no-color",
            "--format=%x1e%H%x1f%aI%x1f%s%x1f",
            "--",
            rel,
        ];
        match self.git(&args, None) {
            Ok(out) => Ok(parse_log(&out, false).into_iter().next()),
            Err(GitError::Failed { stderr, .. })
                if stderr.contains("does not have any commits") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Which of `paths` differ from the last commit (modified, staged, new or
    /// deleted).
    pub fn uncommitted(&self, paths: &[&str]) -> Result<HashSet<String>, GitError> {
        if paths.is_empty() {
            return Ok(HashSet::new());
        }
        let mut args = vec!["status", "--porcelain", "-z", "--untracked-files=all", "--"];
        args.extend(paths);
        let out = self.git(&args, None)?;
        let prefix = self.git(&["rev-parse", "--show-prefix"], None)?;
        let prefix = prefix.trim();
        let mut dirty = HashSet::new();
        let mut entries = out.split('\0').filter(|s| s.len() > 3);
        while let Some(entry) = entries.next() {
            let (status, path) = entry.split_at(3);
            // Porcelain paths are relative to the top of the work tree.
            let rel = path.strip_prefix(prefix).unwrap_or(path);
            dirty.insert(rel.to_string());
            if status.starts_with('R') || status.starts_with('C') {
                entries.next();
            }
        }
        Ok(dirty)
    }
}

/// Parses `git log` output made with the `%x1e%H%x1f%aI%x1f%s%x1f` format.
fn parse_log(out: &str, patch: bool) -> Vec<Version> {
    out.split('\x1e')
        .filter_map(|chunk| {
            let mut parts = chunk.splitn(4, '\x1f');
            let commit = parts.next()?.trim().to_string();
            let date = parts.next()?.to_string();
            let subject = parts.next()?.to_string();
            let rest = parts.next().unwrap_or("");
            if commit.is_empty() {
                return None;
            }
            let date = chrono::DateTime::parse_from_rfc3339(&date)
                .map(|d| format_time(&d.to_utc()))
                .unwrap_or(date);
            Some(Version {
                commit,
                date,
                subject,
                patch: patch.then(|| rest.trim_matches('\n').to_string()),
            })
        })
        .collect()
}

/// A commit message: `<op>: <summary>` (the lines joined by `; `, changes to
/// existing records first, cut to fit one line), a blank line, one line per
/// change in order, and the trailers.
pub fn commit_message(op: &str, lines: &[String], session: Option<&str>) -> String {
    let rank = |line: &String| match line.split(' ').next().unwrap_or("") {
        "UPDATE" => 0,
        "DELETE" | "INVALIDATE" | "MERGE" => 1,
        "ADD" => 2,
        _ => 3,
    };
    let mut ranked: Vec<&String> = lines.iter().collect();
    ranked.sort_by_key(|l| rank(l));
    let joined = ranked
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let mut subject = format!("{op}: {joined}");
    if subject.chars().count() > SUBJECT_MAX {
        subject = subject.chars().take(SUBJECT_MAX - 1).collect();
        subject = subject.trim_end().to_string();
        subject.push('…');
    }
    let mut msg = subject;
    msg.push_str("\n\n");
    for line in lines {
        msg.push_str(line);
        msg.push('\n');
    }
    msg.push('\n');
    msg.push_str(&format!("{TRAILER_OP}: {op}\n"));
    if let Some(s) = session.filter(|s| !s.trim().is_empty()) {
        // A trailer is one line.
        let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        msg.push_str(&format!("{TRAILER_SESSION}: {s}\n"));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_has_subject_body_and_trailers() {
        let lines = vec![
            "ADD likes-jazz-g7h8i9".to_string(),
            "UPDATE lives-in-lisbon-a1b2c3 (supersedes lives-in-berlin-d4e5f6)".to_string(),
        ];
        let msg = commit_message("capture", &lines, Some("s1"));
        let mut it = msg.lines();
        let subject = it.next().unwrap();
        assert!(
            subject.starts_with("capture: UPDATE lives-in-lisbon"),
            "{subject}"
        );
        assert!(subject.chars().count() <= SUBJECT_MAX);
        assert!(subject.ends_with('…'));
        assert_eq!(it.next(), Some(""));
        assert!(
            msg.contains("\n\nADD likes-jazz-g7h8i9\nUPDATE lives-in-lisbon"),
            "{msg}"
        );
        assert!(msg.ends_with("\n\nEngram-Op: capture\nEngram-Session: s1\n"));
    }

    #[test]
    fn short_message_is_not_cut_and_has_no_session_without_one() {
        let msg = commit_message("forget", &["DELETE x-abc123".to_string()], None);
        assert!(
            msg.starts_with("forget: DELETE x-abc123\n\nDELETE x-abc123\n\nEngram-Op: forget\n")
        );
        assert!(!msg.contains(TRAILER_SESSION));
    }

    #[test]
    fn log_output_parses_with_and_without_patches() {
        let out = "\x1eabc\x1f2026-11-20T10:00:00+01:00\x1fforget: DELETE x\x1f\n\ndiff --git a/x b/x\n+status\n\x1edef\x1f2026-11-19T09:00:00Z\x1fadd\x1f\n";
        let v = parse_log(out, true);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].commit, "abc");
        assert_eq!(v[0].date, "2026-11-20T09:00:00Z");
        assert_eq!(v[0].subject, "forget: DELETE x");
        assert_eq!(v[0].patch.as_deref(), Some("diff --git a/x b/x\n+status"));
        assert_eq!(v[1].patch.as_deref(), Some(""));
        assert!(parse_log(out, false)[0].patch.is_none());
    }
}
