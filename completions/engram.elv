
use builtin;
use str;

set edit:completion:arg-completer[engram] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'engram'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'engram'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Create a vault (config, .gitignore; --git also runs git init)'
            cand capture 'Remember something: TEXT, --file or standard input'
            cand remember 'Remember something: TEXT, --file or standard input'
            cand recall 'Find memories: hybrid search, filtered and ranked'
            cand show 'Print one record'
            cand forget 'Invalidate a record and its copies in other tiers (--hard deletes their files)'
            cand restore 'Bring an ended record (superseded, invalidated, archived) back'
            cand list 'List records by filter, newest first'
            cand stats 'Counts per kind and status, and index health'
            cand reindex 'Rebuild the index and vectors from the files'
            cand sync 'Pick up files added, edited, renamed or deleted outside engram'
            cand consolidate 'Turn episodes into facts; summarise a session (--session)'
            cand prune 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions'
            cand doctor 'Check every file and the index; --fix repairs what it can'
            cand watch 'Keep the index live while files change (until Ctrl-C)'
            cand history 'A record''s past versions, from git; a key''s past values (--key)'
            cand set 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)'
            cand get 'Print a keyed fact''s value (exit 1 when it has none in this scope)'
            cand unset 'Remove a keyed fact''s value (it is invalidated, kept in history)'
            cand outcome 'Count how a procedure''s run went: success or failure (--note keeps why)'
            cand completions 'Print a shell completion script'
            cand mcp 'Serve the vault to agents over the Model Context Protocol (stdio)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'engram;init'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --git 'Also run `git init` in it'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;capture'= {
            cand --file 'Read the input from FILE (`-` for standard input)'
            cand --input 'How to read the input'
            cand --user 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user''s records apart from another''s'
            cand --agent 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)'
            cand --session 'The conversation this comes from: working memory is kept per session, and consolidate turns a session''s episodes into facts'
            cand --kind 'The tier to write to (raw capture: episodic unless told)'
            cand --subject 'Who or what the records are about (default: the user, or the person a sentence names)'
            cand --importance '0 to 1'
            cand --tags 'Comma-separated tags'
            cand --ttl 'Expire after this long (30d, 12h, 2w)'
            cand --assistant-chars 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --raw 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)'
            cand --dry-run 'Plan only: print what would be written, write nothing'
            cand --explain 'Say why each mutation happens'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;remember'= {
            cand --file 'Read the input from FILE (`-` for standard input)'
            cand --input 'How to read the input'
            cand --user 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user''s records apart from another''s'
            cand --agent 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)'
            cand --session 'The conversation this comes from: working memory is kept per session, and consolidate turns a session''s episodes into facts'
            cand --kind 'The tier to write to (raw capture: episodic unless told)'
            cand --subject 'Who or what the records are about (default: the user, or the person a sentence names)'
            cand --importance '0 to 1'
            cand --tags 'Comma-separated tags'
            cand --ttl 'Expire after this long (30d, 12h, 2w)'
            cand --assistant-chars 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --raw 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)'
            cand --dry-run 'Plan only: print what would be written, write nothing'
            cand --explain 'Say why each mutation happens'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;recall'= {
            cand -k 'How many results (default 10, or recall.k in the config)'
            cand --limit 'How many results (default 10, or recall.k in the config)'
            cand --kind 'Only this kind (repeat for several)'
            cand --user 'Only records of this user (exact)'
            cand --agent 'Only records of this agent (exact)'
            cand --session 'Only records of this session (exact)'
            cand --subject 'Only records about this subject (exact)'
            cand --category 'Only records of this category (exact)'
            cand --tag 'Only records with this tag (repeat: all must match)'
            cand --since 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)'
            cand --until 'Created at or before TIME'
            cand --as-of 'What was valid at TIME (includes values superseded since)'
            cand --mode 'Retrievers to use (default hybrid: BM25 plus vectors from the built-in embedder or the configured one; `embedder.provider: none` turns vectors off)'
            cand --format 'Output form (--json is the same as --format json, except with --format transcript, which is JSON already)'
            cand --budget 'With --format context: keep the block within about N tokens (4 characters each), facts first; the last line says what was left out'
            cand --last 'With --format transcript: only the last N messages'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --include-superseded 'Also superseded, invalidated, archived and expired records'
            cand --explain 'Show the parts of each score'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;show'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;forget'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --hard 'Delete the file instead of marking it invalidated'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;restore'= {
            cand --reason 'Why it comes back (kept in its `reason`; default "restored by engram restore")'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;list'= {
            cand --kind 'Only this kind (repeat for several)'
            cand --user 'Only records of this user (exact)'
            cand --agent 'Only records of this agent (exact)'
            cand --session 'Only records of this session (exact)'
            cand --subject 'Only records about this subject (exact)'
            cand --category 'Only records of this category (exact)'
            cand --tag 'Only records with this tag (repeat: all must match)'
            cand --since 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)'
            cand --until 'Created at or before TIME'
            cand --as-of 'What was valid at TIME (includes values superseded since)'
            cand -k 'At most N records (default: all; 50 through `engram mcp`)'
            cand --limit 'At most N records (default: all; 50 through `engram mcp`)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --include-superseded 'Also superseded, invalidated, archived and expired records'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;stats'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;reindex'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;sync'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;consolidate'= {
            cand --user 'Only this user''s memories (every agent''s, each scope on its own)'
            cand --agent 'Only this agent''s memories (every user''s, each scope on its own)'
            cand --session 'Also summarise this session''s turns into one episode and archive them'
            cand --keep 'With --session: the most recent turns left as they are (default 2)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --force 'Run even when the thresholds are not met'
            cand --dry-run 'Print the plan only; write nothing'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;prune'= {
            cand --user 'Only this user''s memories (every agent''s, each scope on its own)'
            cand --agent 'Only this agent''s memories (every user''s, each scope on its own)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --dry-run 'Print the plan only; write nothing'
            cand --hard 'Delete the files of what is pruned instead of archiving them'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;doctor'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --fix 'Repair what can be repaired (index drift, vectors, stray temporary files)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;watch'= {
            cand --debounce 'Sync once the vault has been quiet this long (milliseconds)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;history'= {
            cand --user 'The user whose value this is'
            cand --agent 'The agent whose value this is'
            cand --session 'The session whose value this is'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand -p 'Show each version''s diff'
            cand --patch 'Show each version''s diff'
            cand --key 'Read ID as a key: the values it held in the scope, oldest first (also taken when ID names no record and is a key that was set)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;set'= {
            cand --user 'The user whose value this is'
            cand --agent 'The agent whose value this is'
            cand --session 'The session whose value this is'
            cand --ttl 'Expire after this long (30d, 12h, 2w): then `get` has no value'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;get'= {
            cand --user 'The user whose value this is'
            cand --agent 'The agent whose value this is'
            cand --session 'The session whose value this is'
            cand --as-of 'The value the key held at TIME (RFC 3339, a date, or a duration ago like 7d)'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;unset'= {
            cand --user 'The user whose value this is'
            cand --agent 'The agent whose value this is'
            cand --session 'The session whose value this is'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;outcome'= {
            cand --note 'What happened, kept as an episode linked to the procedure'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;completions'= {
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;mcp'= {
            cand --user 'Serve only this user''s memories: what is remembered gets `user: NAME`, and no tool reads or changes another user''s records'
            cand --agent 'Serve only this agent''s memories, the same way'
            cand --vault 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print nothing but results and errors'
            cand --quiet 'Print nothing but results and errors'
            cand -v 'Say more about what happens (on stderr)'
            cand --verbose 'Say more about what happens (on stderr)'
            cand --commit 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'engram;help'= {
            cand init 'Create a vault (config, .gitignore; --git also runs git init)'
            cand capture 'Remember something: TEXT, --file or standard input'
            cand recall 'Find memories: hybrid search, filtered and ranked'
            cand show 'Print one record'
            cand forget 'Invalidate a record and its copies in other tiers (--hard deletes their files)'
            cand restore 'Bring an ended record (superseded, invalidated, archived) back'
            cand list 'List records by filter, newest first'
            cand stats 'Counts per kind and status, and index health'
            cand reindex 'Rebuild the index and vectors from the files'
            cand sync 'Pick up files added, edited, renamed or deleted outside engram'
            cand consolidate 'Turn episodes into facts; summarise a session (--session)'
            cand prune 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions'
            cand doctor 'Check every file and the index; --fix repairs what it can'
            cand watch 'Keep the index live while files change (until Ctrl-C)'
            cand history 'A record''s past versions, from git; a key''s past values (--key)'
            cand set 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)'
            cand get 'Print a keyed fact''s value (exit 1 when it has none in this scope)'
            cand unset 'Remove a keyed fact''s value (it is invalidated, kept in history)'
            cand outcome 'Count how a procedure''s run went: success or failure (--note keeps why)'
            cand completions 'Print a shell completion script'
            cand mcp 'Serve the vault to agents over the Model Context Protocol (stdio)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'engram;help;init'= {
        }
        &'engram;help;capture'= {
        }
        &'engram;help;recall'= {
        }
        &'engram;help;show'= {
        }
        &'engram;help;forget'= {
        }
        &'engram;help;restore'= {
        }
        &'engram;help;list'= {
        }
        &'engram;help;stats'= {
        }
        &'engram;help;reindex'= {
        }
        &'engram;help;sync'= {
        }
        &'engram;help;consolidate'= {
        }
        &'engram;help;prune'= {
        }
        &'engram;help;doctor'= {
        }
        &'engram;help;watch'= {
        }
        &'engram;help;history'= {
        }
        &'engram;help;set'= {
        }
        &'engram;help;get'= {
        }
        &'engram;help;unset'= {
        }
        &'engram;help;outcome'= {
        }
        &'engram;help;completions'= {
        }
        &'engram;help;mcp'= {
        }
        &'engram;help;help'= {
        }
    ]
    $completions[$command]
}
