
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'engram' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'engram'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'engram' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a vault (config, .gitignore; --git also runs git init)')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Remember something: TEXT, --file or standard input')
            [CompletionResult]::new('remember', 'remember', [CompletionResultType]::ParameterValue, 'Remember something: TEXT, --file or standard input')
            [CompletionResult]::new('recall', 'recall', [CompletionResultType]::ParameterValue, 'Find memories: hybrid search, filtered and ranked')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one record')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Invalidate a record and its copies in other tiers (--hard deletes their files)')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring an ended record (superseded, invalidated, archived) back')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List records by filter, newest first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Counts per kind and status, and index health')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Rebuild the index and vectors from the files')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Pick up files added, edited, renamed or deleted outside engram')
            [CompletionResult]::new('consolidate', 'consolidate', [CompletionResultType]::ParameterValue, 'Turn episodes into facts; summarise a session (--session)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every file and the index; --fix repairs what it can')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the index live while files change (until Ctrl-C)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'A record''s past versions, from git; a key''s past values (--key)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print a keyed fact''s value (exit 1 when it has none in this scope)')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a keyed fact''s value (it is invalidated, kept in history)')
            [CompletionResult]::new('outcome', 'outcome', [CompletionResultType]::ParameterValue, 'Count how a procedure''s run went: success or failure (--note keeps why)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the vault to agents over the Model Context Protocol (stdio)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'engram;init' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--git', '--git', [CompletionResultType]::ParameterName, 'Also run `git init` in it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;capture' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the input from FILE (`-` for standard input)')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'How to read the input')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user''s records apart from another''s')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The conversation this comes from: working memory is kept per session, and consolidate turns a session''s episodes into facts')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The tier to write to (raw capture: episodic unless told)')
            [CompletionResult]::new('--subject', '--subject', [CompletionResultType]::ParameterName, 'Who or what the records are about (default: the user, or the person a sentence names)')
            [CompletionResult]::new('--importance', '--importance', [CompletionResultType]::ParameterName, '0 to 1')
            [CompletionResult]::new('--tags', '--tags', [CompletionResultType]::ParameterName, 'Comma-separated tags')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Expire after this long (30d, 12h, 2w)')
            [CompletionResult]::new('--assistant-chars', '--assistant-chars', [CompletionResultType]::ParameterName, 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Plan only: print what would be written, write nothing')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Say why each mutation happens')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;remember' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the input from FILE (`-` for standard input)')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'How to read the input')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Whose memory this is: records get `user: NAME`, and recall, consolidate and prune keep one user''s records apart from another''s')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent that captures: records get `agent: NAME` (recall --agent filters on it)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The conversation this comes from: working memory is kept per session, and consolidate turns a session''s episodes into facts')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The tier to write to (raw capture: episodic unless told)')
            [CompletionResult]::new('--subject', '--subject', [CompletionResultType]::ParameterName, 'Who or what the records are about (default: the user, or the person a sentence names)')
            [CompletionResult]::new('--importance', '--importance', [CompletionResultType]::ParameterName, '0 to 1')
            [CompletionResult]::new('--tags', '--tags', [CompletionResultType]::ParameterName, 'Comma-separated tags')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Expire after this long (30d, 12h, 2w)')
            [CompletionResult]::new('--assistant-chars', '--assistant-chars', [CompletionResultType]::ParameterName, 'Characters of each assistant message read for facts with --input chat (--raw keeps every message whole, as a transcript)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Store as given: no extraction, one record per input, JSONL line or chat message (with its role: a transcript, see recall --format transcript)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Plan only: print what would be written, write nothing')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Say why each mutation happens')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;recall' {
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'How many results (default 10, or recall.k in the config)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many results (default 10, or recall.k in the config)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only this kind (repeat for several)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Only records of this user (exact)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only records of this agent (exact)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only records of this session (exact)')
            [CompletionResult]::new('--subject', '--subject', [CompletionResultType]::ParameterName, 'Only records about this subject (exact)')
            [CompletionResult]::new('--category', '--category', [CompletionResultType]::ParameterName, 'Only records of this category (exact)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only records with this tag (repeat: all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Created at or before TIME')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'What was valid at TIME (includes values superseded since)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Retrievers to use (default hybrid: BM25 plus vectors from the built-in embedder or the configured one; `embedder.provider: none` turns vectors off)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output form (--json is the same as --format json, except with --format transcript, which is JSON already)')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'With --format context: keep the block within about N tokens (4 characters each), facts first; the last line says what was left out')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'With --format transcript: only the last N messages')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--include-superseded', '--include-superseded', [CompletionResultType]::ParameterName, 'Also superseded, invalidated, archived and expired records')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Show the parts of each score')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;show' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;forget' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--hard', '--hard', [CompletionResultType]::ParameterName, 'Delete the file instead of marking it invalidated')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;restore' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why it comes back (kept in its `reason`; default "restored by engram restore")')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;list' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only this kind (repeat for several)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Only records of this user (exact)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only records of this agent (exact)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only records of this session (exact)')
            [CompletionResult]::new('--subject', '--subject', [CompletionResultType]::ParameterName, 'Only records about this subject (exact)')
            [CompletionResult]::new('--category', '--category', [CompletionResultType]::ParameterName, 'Only records of this category (exact)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only records with this tag (repeat: all must match)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Created at or after TIME (RFC 3339, a date, or a duration ago like 7d)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Created at or before TIME')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'What was valid at TIME (includes values superseded since)')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'At most N records (default: all; 50 through `engram mcp`)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most N records (default: all; 50 through `engram mcp`)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--include-superseded', '--include-superseded', [CompletionResultType]::ParameterName, 'Also superseded, invalidated, archived and expired records')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;stats' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;reindex' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;sync' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;consolidate' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Only this user''s memories (every agent''s, each scope on its own)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only this agent''s memories (every user''s, each scope on its own)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Also summarise this session''s turns into one episode and archive them')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'With --session: the most recent turns left as they are (default 2)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Run even when the thresholds are not met')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan only; write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;prune' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Only this user''s memories (every agent''s, each scope on its own)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only this agent''s memories (every user''s, each scope on its own)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan only; write nothing')
            [CompletionResult]::new('--hard', '--hard', [CompletionResultType]::ParameterName, 'Delete the files of what is pruned instead of archiving them')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;doctor' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Repair what can be repaired (index drift, vectors, stray temporary files)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;watch' {
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'Sync once the vault has been quiet this long (milliseconds)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;history' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user whose value this is')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose value this is')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session whose value this is')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Show each version''s diff')
            [CompletionResult]::new('--patch', '--patch', [CompletionResultType]::ParameterName, 'Show each version''s diff')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Read ID as a key: the values it held in the scope, oldest first (also taken when ID names no record and is a key that was set)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;set' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user whose value this is')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose value this is')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session whose value this is')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Expire after this long (30d, 12h, 2w): then `get` has no value')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;get' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user whose value this is')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose value this is')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session whose value this is')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'The value the key held at TIME (RFC 3339, a date, or a duration ago like 7d)')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;unset' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user whose value this is')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose value this is')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session whose value this is')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;outcome' {
            [CompletionResult]::new('--note', '--note', [CompletionResultType]::ParameterName, 'What happened, kept as an episode linked to the procedure')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;completions' {
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;mcp' {
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Serve only this user''s memories: what is remembered gets `user: NAME`, and no tool reads or changes another user''s records')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Serve only this agent''s memories, the same way')
            [CompletionResult]::new('--vault', '--vault', [CompletionResultType]::ParameterName, 'The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding .engram/, else the per-user default vault)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but results and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more about what happens (on stderr)')
            [CompletionResult]::new('--commit', '--commit', [CompletionResultType]::ParameterName, 'Commit what this command changes in the vault''s git repository (same as `git: {auto_commit: true}` in the config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'engram;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a vault (config, .gitignore; --git also runs git init)')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Remember something: TEXT, --file or standard input')
            [CompletionResult]::new('recall', 'recall', [CompletionResultType]::ParameterValue, 'Find memories: hybrid search, filtered and ranked')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one record')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Invalidate a record and its copies in other tiers (--hard deletes their files)')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring an ended record (superseded, invalidated, archived) back')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List records by filter, newest first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Counts per kind and status, and index health')
            [CompletionResult]::new('reindex', 'reindex', [CompletionResultType]::ParameterValue, 'Rebuild the index and vectors from the files')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Pick up files added, edited, renamed or deleted outside engram')
            [CompletionResult]::new('consolidate', 'consolidate', [CompletionResultType]::ParameterValue, 'Turn episodes into facts; summarise a session (--session)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every file and the index; --fix repairs what it can')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Keep the index live while files change (until Ctrl-C)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'A record''s past versions, from git; a key''s past values (--key)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print a keyed fact''s value (exit 1 when it has none in this scope)')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a keyed fact''s value (it is invalidated, kept in history)')
            [CompletionResult]::new('outcome', 'outcome', [CompletionResultType]::ParameterValue, 'Count how a procedure''s run went: success or failure (--note keeps why)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the vault to agents over the Model Context Protocol (stdio)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'engram;help;init' {
            break
        }
        'engram;help;capture' {
            break
        }
        'engram;help;recall' {
            break
        }
        'engram;help;show' {
            break
        }
        'engram;help;forget' {
            break
        }
        'engram;help;restore' {
            break
        }
        'engram;help;list' {
            break
        }
        'engram;help;stats' {
            break
        }
        'engram;help;reindex' {
            break
        }
        'engram;help;sync' {
            break
        }
        'engram;help;consolidate' {
            break
        }
        'engram;help;prune' {
            break
        }
        'engram;help;doctor' {
            break
        }
        'engram;help;watch' {
            break
        }
        'engram;help;history' {
            break
        }
        'engram;help;set' {
            break
        }
        'engram;help;get' {
            break
        }
        'engram;help;unset' {
            break
        }
        'engram;help;outcome' {
            break
        }
        'engram;help;completions' {
            break
        }
        'engram;help;mcp' {
            break
        }
        'engram;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
