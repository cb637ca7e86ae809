# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_engram_global_optspecs
    string join \n vault= json q/quiet v/verbose commit h/help V/version
end

function __fish_engram_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_engram_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_engram_using_subcommand
    set -l cmd (__fish_engram_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c engram -n "__fish_engram_needs_command" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_needs_command" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_needs_command" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_needs_command" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_needs_command" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_needs_command" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_needs_command" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_needs_command" -f -a "init" -d 'Create a vault (config, .gitignore; --git also runs git init)'
complete -c engram -n "__fish_engram_needs_command" -f -a "capture" -d 'Remember something: TEXT, --file or standard input'
complete -c engram -n "__fish_engram_needs_command" -f -a "remember" -d 'Remember something: TEXT, --file or standard input'
complete -c engram -n "__fish_engram_needs_command" -f -a "recall" -d 'Find memories: hybrid search, filtered and ranked'
complete -c engram -n "__fish_engram_needs_command" -f -a "show" -d 'Print one record'
complete -c engram -n "__fish_engram_needs_command" -f -a "forget" -d 'Invalidate a record and its copies in other tiers (--hard deletes their files)'
complete -c engram -n "__fish_engram_needs_command" -f -a "restore" -d 'Bring an ended record (superseded, invalidated, archived) back'
complete -c engram -n "__fish_engram_needs_command" -f -a "list" -d 'List records by filter, newest first'
complete -c engram -n "__fish_engram_needs_command" -f -a "stats" -d 'Counts per kind and status, and index health'
complete -c engram -n "__fish_engram_needs_command" -f -a "reindex" -d 'Rebuild the index and vectors from the files'
complete -c engram -n "__fish_engram_needs_command" -f -a "sync" -d 'Pick up files added, edited, renamed or deleted outside engram'
complete -c engram -n "__fish_engram_needs_command" -f -a "consolidate" -d 'Turn episodes into facts; summarise a session (--session)'
complete -c engram -n "__fish_engram_needs_command" -f -a "prune" -d 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions'
complete -c engram -n "__fish_engram_needs_command" -f -a "doctor" -d 'Check every file and the index; --fix repairs what it can'
complete -c engram -n "__fish_engram_needs_command" -f -a "watch" -d 'Keep the index live while files change (until Ctrl-C)'
complete -c engram -n "__fish_engram_needs_command" -f -a "history" -d 'A record\'s past versions, from git; a key\'s past values (--key)'
complete -c engram -n "__fish_engram_needs_command" -f -a "set" -d 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)'
complete -c engram -n "__fish_engram_needs_command" -f -a "get" -d 'Print a keyed fact\'s value (exit 1 when it has none in this scope)'
complete -c engram -n "__fish_engram_needs_command" -f -a "unset" -d 'Remove a keyed fact\'s value (it is invalidated, kept in history)'
complete -c engram -n "__fish_engram_needs_command" -f -a "outcome" -d 'Count how a procedure\'s run went: success or failure (--note keeps why)'
complete -c engram -n "__fish_engram_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c engram -n "__fish_engram_needs_command" -f -a "mcp" -d 'Serve the vault to agents over the Model Context Protocol (stdio)'
complete -c engram -n "__fish_engram_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c engram -n "__fish_engram_using_subcommand init" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand init" -l git -d 'Also run `git init` in it'
complete -c engram -n "__fish_engram_using_subcommand init" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand init" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand init" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand init" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand init" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand init" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand capture" -l file -d 'Read the input from FILE (`-` for standard input)' -r -F
complete -c engram -n "__fish_engram_using_subcommand capture" -l input -d 'How to read the input' -r -f -a "text\t'Prose'
chat\t'A JSON array of {role, content} messages (the OpenAI shape)'
jsonl\t'One JSON record per line: {"content", "kind"?, "subject"?, ...}'
notes\t'An agent\'s notes, one a line: each kept as written, then reconciled'"
complete -c engram -n "__fish_engram_using_subcommand capture" -l user -d 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user\'s records apart from another\'s' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l agent -d 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l session -d 'The conversation this comes from: working memory is kept per session, and consolidate turns a session\'s episodes into facts' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l kind -d 'The tier to write to (raw capture: episodic unless told)' -r -f -a "working\t''
episodic\t''
semantic\t''
procedural\t''"
complete -c engram -n "__fish_engram_using_subcommand capture" -l subject -d 'Who or what the records are about (default: the user, or the person a sentence names)' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l importance -d '0 to 1' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l tags -d 'Comma-separated tags' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l ttl -d 'Expire after this long (30d, 12h, 2w)' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l assistant-chars -d 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)' -r
complete -c engram -n "__fish_engram_using_subcommand capture" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand capture" -l raw -d 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)'
complete -c engram -n "__fish_engram_using_subcommand capture" -l dry-run -d 'Plan only: print what would be written, write nothing'
complete -c engram -n "__fish_engram_using_subcommand capture" -l explain -d 'Say why each mutation happens'
complete -c engram -n "__fish_engram_using_subcommand capture" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand capture" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand capture" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand capture" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand capture" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c engram -n "__fish_engram_using_subcommand capture" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand remember" -l file -d 'Read the input from FILE (`-` for standard input)' -r -F
complete -c engram -n "__fish_engram_using_subcommand remember" -l input -d 'How to read the input' -r -f -a "text\t'Prose'
chat\t'A JSON array of {role, content} messages (the OpenAI shape)'
jsonl\t'One JSON record per line: {"content", "kind"?, "subject"?, ...}'
notes\t'An agent\'s notes, one a line: each kept as written, then reconciled'"
complete -c engram -n "__fish_engram_using_subcommand remember" -l user -d 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user\'s records apart from another\'s' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l agent -d 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l session -d 'The conversation this comes from: working memory is kept per session, and consolidate turns a session\'s episodes into facts' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l kind -d 'The tier to write to (raw capture: episodic unless told)' -r -f -a "working\t''
episodic\t''
semantic\t''
procedural\t''"
complete -c engram -n "__fish_engram_using_subcommand remember" -l subject -d 'Who or what the records are about (default: the user, or the person a sentence names)' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l importance -d '0 to 1' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l tags -d 'Comma-separated tags' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l ttl -d 'Expire after this long (30d, 12h, 2w)' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l assistant-chars -d 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)' -r
complete -c engram -n "__fish_engram_using_subcommand remember" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand remember" -l raw -d 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)'
complete -c engram -n "__fish_engram_using_subcommand remember" -l dry-run -d 'Plan only: print what would be written, write nothing'
complete -c engram -n "__fish_engram_using_subcommand remember" -l explain -d 'Say why each mutation happens'
complete -c engram -n "__fish_engram_using_subcommand remember" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand remember" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand remember" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand remember" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand remember" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c engram -n "__fish_engram_using_subcommand remember" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand recall" -s k -l limit -d 'How many results (default 10, or recall.k in the config)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l kind -d 'Only this kind (repeat for several)' -r -f -a "working\t''
episodic\t''
semantic\t''
procedural\t''"
complete -c engram -n "__fish_engram_using_subcommand recall" -l user -d 'Only records of this user (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l agent -d 'Only records of this agent (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l session -d 'Only records of this session (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l subject -d 'Only records about this subject (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l category -d 'Only records of this category (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l tag -d 'Only records with this tag (repeat: all must match)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l since -d 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l until -d 'Created at or before TIME' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l as-of -d 'What was valid at TIME (includes values superseded since)' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l mode -d 'Retrievers to use (default hybrid: BM25 plus vectors from the built-in embedder or the configured one; `embedder.provider: none` turns vectors off)' -r -f -a "hybrid\t''
bm25\t''
vector\t''"
complete -c engram -n "__fish_engram_using_subcommand recall" -l format -d 'Output form (--json is the same as --format json, except with --format transcript, which is JSON already)' -r -f -a "text\t''
json\t''
context\t'A prompt block: facts, then working memory, then recent episodes'
paths\t'One absolute file path per line'
transcript\t'A session\'s messages, oldest first, as a JSON array of {role, content} (needs --session)'"
complete -c engram -n "__fish_engram_using_subcommand recall" -l budget -d 'With --format context: keep the block within about N tokens (4 characters each), facts first; the last line says what was left out' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l last -d 'With --format transcript: only the last N messages' -r
complete -c engram -n "__fish_engram_using_subcommand recall" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand recall" -l include-superseded -d 'Also superseded, invalidated, archived and expired records'
complete -c engram -n "__fish_engram_using_subcommand recall" -l explain -d 'Show the parts of each score'
complete -c engram -n "__fish_engram_using_subcommand recall" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand recall" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand recall" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand recall" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand recall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c engram -n "__fish_engram_using_subcommand recall" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand show" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand show" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand show" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand show" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand show" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand show" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand show" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand forget" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand forget" -l hard -d 'Delete the file instead of marking it invalidated'
complete -c engram -n "__fish_engram_using_subcommand forget" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand forget" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand forget" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand forget" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand forget" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand forget" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand restore" -l reason -d 'Why it comes back (kept in its `reason`; default "restored by engram restore")' -r
complete -c engram -n "__fish_engram_using_subcommand restore" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand restore" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand restore" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand restore" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand restore" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand restore" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand restore" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand list" -l kind -d 'Only this kind (repeat for several)' -r -f -a "working\t''
episodic\t''
semantic\t''
procedural\t''"
complete -c engram -n "__fish_engram_using_subcommand list" -l user -d 'Only records of this user (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l agent -d 'Only records of this agent (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l session -d 'Only records of this session (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l subject -d 'Only records about this subject (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l category -d 'Only records of this category (exact)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l tag -d 'Only records with this tag (repeat: all must match)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l since -d 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l until -d 'Created at or before TIME' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l as-of -d 'What was valid at TIME (includes values superseded since)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -s k -l limit -d 'At most N records (default: all; 50 through `engram mcp`)' -r
complete -c engram -n "__fish_engram_using_subcommand list" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand list" -l include-superseded -d 'Also superseded, invalidated, archived and expired records'
complete -c engram -n "__fish_engram_using_subcommand list" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand list" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand list" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand list" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand list" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand list" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand stats" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand stats" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand stats" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand stats" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand stats" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand stats" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand stats" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand reindex" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand reindex" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand reindex" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand reindex" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand reindex" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand reindex" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand reindex" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand sync" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand sync" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand sync" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand sync" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand sync" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand sync" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand sync" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l user -d 'Only this user\'s memories (every agent\'s, each scope on its own)' -r
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l agent -d 'Only this agent\'s memories (every user\'s, each scope on its own)' -r
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l session -d 'Also summarise this session\'s turns into one episode and archive them' -r
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l keep -d 'With --session: the most recent turns left as they are (default 2)' -r
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l force -d 'Run even when the thresholds are not met'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l dry-run -d 'Print the plan only; write nothing'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand consolidate" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand prune" -l user -d 'Only this user\'s memories (every agent\'s, each scope on its own)' -r
complete -c engram -n "__fish_engram_using_subcommand prune" -l agent -d 'Only this agent\'s memories (every user\'s, each scope on its own)' -r
complete -c engram -n "__fish_engram_using_subcommand prune" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand prune" -l dry-run -d 'Print the plan only; write nothing'
complete -c engram -n "__fish_engram_using_subcommand prune" -l hard -d 'Delete the files of what is pruned instead of archiving them'
complete -c engram -n "__fish_engram_using_subcommand prune" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand prune" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand prune" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand prune" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand prune" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand prune" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand doctor" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand doctor" -l fix -d 'Repair what can be repaired (index drift, vectors, stray temporary files)'
complete -c engram -n "__fish_engram_using_subcommand doctor" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand doctor" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand doctor" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand doctor" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand watch" -l debounce -d 'Sync once the vault has been quiet this long (milliseconds)' -r
complete -c engram -n "__fish_engram_using_subcommand watch" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand watch" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand watch" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand watch" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand watch" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand watch" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand watch" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand history" -l user -d 'The user whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand history" -l agent -d 'The agent whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand history" -l session -d 'The session whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand history" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand history" -s p -l patch -d 'Show each version\'s diff'
complete -c engram -n "__fish_engram_using_subcommand history" -l key -d 'Read ID as a key: the values it held in the scope, oldest first (also taken when ID names no record and is a key that was set)'
complete -c engram -n "__fish_engram_using_subcommand history" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand history" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand history" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand history" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand history" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand history" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand set" -l user -d 'The user whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand set" -l agent -d 'The agent whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand set" -l session -d 'The session whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand set" -l ttl -d 'Expire after this long (30d, 12h, 2w): then `get` has no value' -r
complete -c engram -n "__fish_engram_using_subcommand set" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand set" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand set" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand set" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand set" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand set" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand set" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand get" -l user -d 'The user whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand get" -l agent -d 'The agent whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand get" -l session -d 'The session whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand get" -l as-of -d 'The value the key held at TIME (RFC 3339, a date, or a duration ago like 7d)' -r
complete -c engram -n "__fish_engram_using_subcommand get" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand get" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand get" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand get" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand get" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand get" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand get" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand unset" -l user -d 'The user whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand unset" -l agent -d 'The agent whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand unset" -l session -d 'The session whose value this is' -r
complete -c engram -n "__fish_engram_using_subcommand unset" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand unset" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand unset" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand unset" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand unset" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand unset" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand unset" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand outcome" -l note -d 'What happened, kept as an episode linked to the procedure' -r
complete -c engram -n "__fish_engram_using_subcommand outcome" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand outcome" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand outcome" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand outcome" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand outcome" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand outcome" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand outcome" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand completions" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand completions" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand completions" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand completions" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand completions" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand completions" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand completions" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand mcp" -l user -d 'Serve only this user\'s memories: what is remembered gets `user: NAME`, and no tool reads or changes another user\'s records' -r
complete -c engram -n "__fish_engram_using_subcommand mcp" -l agent -d 'Serve only this agent\'s memories, the same way' -r
complete -c engram -n "__fish_engram_using_subcommand mcp" -l vault -d 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)' -r -F
complete -c engram -n "__fish_engram_using_subcommand mcp" -l json -d 'Print one JSON document on stdout'
complete -c engram -n "__fish_engram_using_subcommand mcp" -s q -l quiet -d 'Print nothing but results and errors'
complete -c engram -n "__fish_engram_using_subcommand mcp" -s v -l verbose -d 'Say more about what happens (on stderr)'
complete -c engram -n "__fish_engram_using_subcommand mcp" -l commit -d 'Commit what this command changes in the vault\'s git repository (same as `git: {auto_commit: true}` in the config)'
complete -c engram -n "__fish_engram_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c engram -n "__fish_engram_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "init" -d 'Create a vault (config, .gitignore; --git also runs git init)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "capture" -d 'Remember something: TEXT, --file or standard input'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "recall" -d 'Find memories: hybrid search, filtered and ranked'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "show" -d 'Print one record'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "forget" -d 'Invalidate a record and its copies in other tiers (--hard deletes their files)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "restore" -d 'Bring an ended record (superseded, invalidated, archived) back'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "list" -d 'List records by filter, newest first'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "stats" -d 'Counts per kind and status, and index health'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "reindex" -d 'Rebuild the index and vectors from the files'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "sync" -d 'Pick up files added, edited, renamed or deleted outside engram'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "consolidate" -d 'Turn episodes into facts; summarise a session (--session)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "prune" -d 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "doctor" -d 'Check every file and the index; --fix repairs what it can'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "watch" -d 'Keep the index live while files change (until Ctrl-C)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "history" -d 'A record\'s past versions, from git; a key\'s past values (--key)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "set" -d 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "get" -d 'Print a keyed fact\'s value (exit 1 when it has none in this scope)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "unset" -d 'Remove a keyed fact\'s value (it is invalidated, kept in history)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "outcome" -d 'Count how a procedure\'s run went: success or failure (--note keeps why)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "completions" -d 'Print a shell completion script'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "mcp" -d 'Serve the vault to agents over the Model Context Protocol (stdio)'
complete -c engram -n "__fish_engram_using_subcommand help; and not __fish_seen_subcommand_from init capture recall show forget restore list stats reindex sync consolidate prune doctor watch history set get unset outcome completions mcp help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
