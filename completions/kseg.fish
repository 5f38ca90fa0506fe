# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kseg_global_optspecs
    string join \n h/help V/version
end

function __fish_kseg_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kseg_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kseg_using_subcommand
    set -l cmd (__fish_kseg_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kseg -n "__fish_kseg_needs_command" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_needs_command" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "dump" -d 'Print the contents of Kafka data files, as kafka-dump-log.sh does'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "locate" -d 'Trace Kafka\'s lookup of an offset or a timestamp, step by step'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "verify" -d 'Check CRCs and structure, and say what Kafka\'s recovery will do on its next start'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "recover" -d 'Do offline what Kafka\'s recovery would do (a dry run unless --apply)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "retention-report" -d 'Explain when retention deletes each segment, and why old data is still there'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "rebuild-index" -d 'Rebuild missing or corrupt .index/.timeindex files as Kafka would'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "diverge" -d 'What each replica of a partition truncates when it follows, and which records that loses'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "export" -d 'Print every record as NDJSON or as lines a producer can replay'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "salvage" -d 'Report what reading past damage keeps that Kafka\'s recovery throws away (dry)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "config" -d 'The effective configs of each topic, with where each value comes from'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "restore" -d 'Put back every file a writing command replaced, from its backup directory'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "metadata" -d 'The cluster metadata image __cluster_metadata-0 replays to, and stray replicas'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "history" -d 'Every change the metadata log records, in order, with its time: leaders, ISRs, brokers, configs, …'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "groups" -d 'The consumer groups and committed offsets (with lag) the group coordinator loads from __consumer_offsets'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "transactions" -d 'Each transactional id\'s state, and the transactions left open in the data partitions (hanging ones named)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "remote" -d 'Tiered storage\'s remote segments per partition, as __remote_log_metadata leaves them (stuck uploads and deletes named)'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "report" -d 'One self-contained HTML page of a log dir: timeline, retention, sizes, lag, findings'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "generate" -d 'Generate completions, man pages or the bundled test data'
complete -c kseg -n "__fish_kseg_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l files -d 'Comma-separated files (kafka-dump-log\'s form)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l encoding -d 'How keys, values and header values are printed' -r -f -a "utf8\t'UTF-8 text, falling back to hex for bytes that are not valid UTF-8'
hex\t'Lower-case hex'
base64\t'Base64'"
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l max-bytes -d 'Only dump whole batches within the first N bytes of a .log' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l max-message-size -d 'Accepted for compatibility with kafka-dump-log; has no effect' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l max-decompressed-bytes -d 'Largest decompressed batch kseg will hold in memory, in bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l base-offset -d 'The segment\'s base offset, for a renamed copy whose name does not carry it (index entries are stored relative to it)' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l aiven-private-key -d 'An RSA private key (PKCS#8 PEM) that unwraps the data keys of remote segments Aiven\'s tiered storage encrypted: `ID=PATH` for the key pair ID its `encryption.key.pairs` names, or `PATH` for any' -r
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l deep-iteration -l deep -d 'Print one line per record'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l print-data-log -d 'Print keys, values and header values (implies --deep-iteration)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l skip-record-metadata -d 'Leave out record metadata, keep key and payload'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l json -d 'Newline-delimited JSON, one object per batch, record or entry'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l verify-index-only -d 'Check index entries against the .log without printing them'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l index-sanity-check -d 'Run Kafka\'s index sanity check without printing entries'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l keep-cache -d 'Leave pages kseg reads in the page cache'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l offsets-decoder -d 'Decode records as __consumer_offsets records (implies --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l transaction-log-decoder -d 'Decode records as __transaction_state records (implies --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l cluster-metadata-decoder -d 'Decode records as __cluster_metadata records (implies --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l remote-log-metadata-decoder -d 'Decode records as __remote_log_metadata records (implies --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l share-group-state-decoder -d 'Decode records as __share_group_state records (implies --print-data-log)'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -l no-decode -d 'Print internal topics\' keys and values as raw bytes, undecoded'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand dump" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l offset -d 'Offset to find' -r
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l timestamp -d 'Timestamp to find: epoch ms, RFC 3339 (2024-05-01T12:00:00Z) or an age like 1h, 30m, 2d' -r
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l log-start-offset -d 'The log start offset [default: log-start-offset-checkpoint, else the first segment\'s base offset]' -r
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l remote-log-metadata -d 'Where tiered storage\'s __remote_log_metadata-N partitions are, for an offset below the local log start (repeatable) [default: the partition\'s log dir]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l deep -d 'Also decode and print the record found'
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l as-opened -d 'Search indexes as a broker opening these files without recovery would: every slot, a preallocated zero tail included (default: the real entries, as a running broker or one that recovered them)'
complete -c kseg -n "__fish_kseg_using_subcommand locate" -l json -d 'Print the whole trace as one JSON object'
complete -c kseg -n "__fish_kseg_using_subcommand locate" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand locate" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l recovery-point -d 'Recovery point to assume [default: recovery-point-offset-checkpoint, else 0]' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l index-interval-bytes -d 'The topic\'s index.interval.bytes (for the indexes recovery rebuilds), or `auto`: inferred from the partition\'s existing offset indexes (4096, Kafka\'s default, when they tell nothing)' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l page-cache -d 'What reading leaves in the page cache' -r -f -a "auto\t'restore while a broker holds the log dir\'s .lock, keep otherwise'
keep\t'leave what kseg read cached: the broker\'s own recovery reads the same segments when it starts'
restore\t'drop the pages kseg pulled in; pages cached before stay, so a live broker\'s consumers keep theirs'"
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l now -d 'The broker\'s clock when it starts: epoch ms, RFC 3339, or an age like 1h [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l producer-id-expiration-ms -d 'The broker\'s producer.id.expiration.ms: producers idle this long are dropped when a producer snapshot is loaded' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l metadata -d 'The metadata log to take topic configs from: a __cluster_metadata-0 directory or the log dir holding one [default: the log dir\'s own, when it has one]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l server-properties -d 'The broker\'s server.properties: its log.* settings are the STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes, transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l remote -d 'Also check every remote segment under this object-store prefix (`s3://bucket/prefix`, `gs://…`, `az://…`, `file:///dir`), stored by Kafka\'s LocalTieredStorage or Aiven\'s tiered storage, read in place: CRCs, batches and indexes (credentials and endpoint from the store\'s usual environment variables)' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l aiven-private-key -d 'An RSA private key (PKCS#8 PEM) that unwraps the data keys of segments Aiven\'s tiered storage encrypted: `ID=PATH` for the key pair ID its `encryption.key.pairs` names, or `PATH` for any' -r
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l deep -d 'Also decompress and decode every record and check it against its batch'
complete -c kseg -n "__fish_kseg_using_subcommand verify" -l json -d 'Output as newline-delimited JSON, one object per partition'
complete -c kseg -n "__fish_kseg_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand verify" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l recovery-point -d 'Recovery point to assume [default: recovery-point-offset-checkpoint, else 0]' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l index-interval-bytes -d 'The topic\'s index.interval.bytes (for the indexes recovery rebuilds), or `auto`: inferred from the partition\'s existing offset indexes (4096, Kafka\'s default, when they tell nothing)' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l page-cache -d 'What reading leaves in the page cache' -r -f -a "auto\t'restore while a broker holds the log dir\'s .lock, keep otherwise'
keep\t'leave what kseg read cached: the broker\'s own recovery reads the same segments when it starts'
restore\t'drop the pages kseg pulled in; pages cached before stay, so a live broker\'s consumers keep theirs'"
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l now -d 'The broker\'s clock when it starts: epoch ms, RFC 3339, or an age like 1h [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l producer-id-expiration-ms -d 'The broker\'s producer.id.expiration.ms: producers idle this long are dropped when a producer snapshot is loaded' -r
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l metadata -d 'The metadata log to take topic configs from: a __cluster_metadata-0 directory or the log dir holding one [default: the log dir\'s own, when it has one]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l server-properties -d 'The broker\'s server.properties: its log.* settings are the STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes, transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l undo -d 'Put back the files a previous `recover --apply` changed' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l backup-dir -d 'Where copies of replaced files go; must not exist yet [default: a new ./kseg-backup-<unix ms>-<pid>]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l deep -d 'Also decompress and decode every record and check it against its batch'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l json -d 'Output as newline-delimited JSON, one object per partition'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l apply -d 'Carry the plan out'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l salvage -d 'Instead of Kafka\'s truncation, cut out only the damaged byte ranges and keep every valid batch and segment after them (the log then has an offset gap, as a compacted log does)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -l ignore-lock -d 'Write even if a process holds the log dir\'s .lock (dangerous)'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand recover" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l config -d 'A topic or broker setting, by Kafka\'s name (repeatable), e.g. retention.ms=604800000; TOPIC:NAME=VALUE sets it for one topic only' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l config-file -d 'A properties file of settings (applied before --config)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l kafka-version -d 'Whose defaults apply where Kafka\'s differ' -r -f -a "3\t'Kafka 3.x defaults'
4\t'Kafka 4.x defaults (message.timestamp.after.max.ms = 1 h)'"
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l now -d 'The clock: epoch ms, RFC 3339, or an age like 1h [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l log-start-offset -d 'The log start offset [default: log-start-offset-checkpoint, else the first segment\'s base offset]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l high-watermark -d 'The high watermark [default: replication-offset-checkpoint, else the log end offset]' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l remote-log-metadata -d 'Where tiered storage\'s __remote_log_metadata-N partitions are, for a tiered topic\'s local retention (repeatable) [default: the log dir]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l topic -d 'Only this topic\'s partitions (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l metadata -d 'The metadata log to take topic configs from: a __cluster_metadata-0 directory or the log dir holding one [default: the log dir\'s own, when it has one]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l server-properties -d 'The broker\'s server.properties: its log.* settings are the STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes, transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l deletable-now -d 'Only partitions a retention check now deletes segments from'
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l with-warnings -d 'Only partitions with a warning (old timestamps, small segments, a compacted topic, ...)'
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -l json -d 'One JSON object per partition'
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand retention-report" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l index-interval-bytes -d 'The topic\'s index.interval.bytes, or `auto`: inferred from the partition\'s existing offset indexes (4096, Kafka\'s default, when they tell nothing)' -r
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l backup-dir -d 'Where copies of replaced files go; must not exist yet [default: a new ./kseg-backup-<unix ms>-<pid>]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l metadata -d 'The metadata log to take topic configs from: a __cluster_metadata-0 directory or the log dir holding one [default: the log dir\'s own, when it has one]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l server-properties -d 'The broker\'s server.properties: its log.* settings are the STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes, transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l check -d 'Compare existing indexes with the rebuild and write nothing (exit 1 if any needs a rebuild)'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l dry-run -d 'Print what would be written, write nothing'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l force -d 'Rewrite every index, not only missing, corrupt or different ones'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l verify -d 'Check each batch\'s CRC; stop a segment\'s rebuild at the first bad batch, as recovery does'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l no-backup -d 'Do not keep copies of replaced files'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l json -d 'Output as newline-delimited JSON'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -l ignore-lock -d 'Write even if a process holds the log dir\'s .lock (dangerous)'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand rebuild-index" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand diverge" -l leader -d 'The leader [default: the highest latest leader epoch, then the largest log end offset]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand diverge" -l export -d 'Write each follower\'s lost batches, verbatim, as a partition directory under DIR (which must not exist yet)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand diverge" -l json -d 'Newline-delimited JSON, one object per follower'
complete -c kseg -n "__fish_kseg_using_subcommand diverge" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand diverge" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l format -d 'Output form' -r -f -a "json\t'One JSON object per record (NDJSON)'
line\t'KEY<separator>VALUE lines, as kafka-console-producer (parse.key=true) and kcat -K read them'
parquet\t'An Apache Parquet file (needs --output): one row per record, zstd-compressed'"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l encoding -d 'How keys, values and header values are written in JSON' -r -f -a "utf8\t'UTF-8 text, falling back to hex for bytes that are not valid UTF-8'
hex\t'Lower-case hex'
base64\t'Base64'"
complete -c kseg -n "__fish_kseg_using_subcommand export" -l key-separator -d 'Between key and value in --format line [default: a tab, as the console producer\'s key.separator]' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l null-marker -d 'Stands for a null key or value in --format line (the console producer\'s null.marker)' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l from-offset -d 'First offset exported' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l to-offset -d 'Last offset exported' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l from-time -d 'Earliest timestamp exported: epoch ms, RFC 3339 or an age like 1h' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l to-time -d 'Latest timestamp exported: epoch ms, RFC 3339 or an age like 1h' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -l max-decompressed-bytes -d 'Largest batch, and largest decompressed batch, kseg will hold in memory, in bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand export" -s o -l output -d 'Write to this file instead of stdout (required for --format parquet)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand export" -l include-control -d 'Also export control records (transaction markers, KRaft control records)'
complete -c kseg -n "__fish_kseg_using_subcommand export" -l salvage -d 'Read past damaged batches: resynchronize at the next batch that validates'
complete -c kseg -n "__fish_kseg_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand export" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand salvage" -l max-decompressed-bytes -d 'Largest batch, and largest decompressed batch, kseg will hold in memory, in bytes' -r
complete -c kseg -n "__fish_kseg_using_subcommand salvage" -l json -d 'One JSON object per partition'
complete -c kseg -n "__fish_kseg_using_subcommand salvage" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand salvage" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand config" -l topic -d 'Only this topic (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand config" -l kafka-version -d 'Whose defaults apply where Kafka\'s differ' -r -f -a "3\t'Kafka 3.x defaults'
4\t'Kafka 4.x defaults (message.timestamp.after.max.ms = 1 h)'"
complete -c kseg -n "__fish_kseg_using_subcommand config" -l metadata -d 'The metadata log to take topic configs from: a __cluster_metadata-0 directory or the log dir holding one [default: the log dir\'s own, when it has one]' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand config" -l server-properties -d 'The broker\'s server.properties: its log.* settings are the STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes, transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand config" -l all -d 'Print every config, Kafka\'s defaults included (JSON always has them all)'
complete -c kseg -n "__fish_kseg_using_subcommand config" -l json -d 'One JSON object per topic'
complete -c kseg -n "__fish_kseg_using_subcommand config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand config" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand restore" -l ignore-lock -d 'Write even if a process holds the log dir\'s .lock (dangerous)'
complete -c kseg -n "__fish_kseg_using_subcommand restore" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand restore" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l at-offset -d 'The image as of this offset of the metadata log (inclusive)' -r
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l at-time -d 'The image as of this time: through the last batch appended at or before it, the batches read in log order up to the first appended later (epoch ms, RFC 3339, or an age like 1h)' -r
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l snapshot -d 'Start from this snapshot (<endOffset>-<epoch>.checkpoint) instead of the newest one that reads cleanly' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l topic -d 'Only this topic\'s partitions and configs (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l under-replicated-partitions -d 'Only partitions whose ISR is smaller than their replicas'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l unavailable-partitions -d 'Only partitions with no leader, or whose leader is not a live (unfenced) broker'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l under-min-isr-partitions -d 'Only partitions with no leader, or whose ISR is smaller than min.insync.replicas'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -l json -d 'One JSON object'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand metadata" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand history" -l since -d 'Only events appended at or after this time (epoch ms, RFC 3339, or an age like 1h)' -r
complete -c kseg -n "__fish_kseg_using_subcommand history" -l until -d 'Only events appended at or before this time' -r
complete -c kseg -n "__fish_kseg_using_subcommand history" -l topic -d 'Only events of this topic: its creation and deletion, its partitions, its configs' -r
complete -c kseg -n "__fish_kseg_using_subcommand history" -l partition -d 'Only events of this partition (topic-N), and its topic\'s creation and deletion; on a log dir holding the partition\'s directory, then what its files say (segment starts, leader epoch starts from leader-epoch-checkpoint, producer epoch bumps, aborted transactions, the recovery point), and each leader election names where its epoch starts there' -r
complete -c kseg -n "__fish_kseg_using_subcommand history" -l broker -d 'Only events naming this broker: its registration and fencing, its configs, the partitions it leads, is in the ISR of or is a replica of (before or after)' -r
complete -c kseg -n "__fish_kseg_using_subcommand history" -l snapshot -d 'Start from this snapshot (<endOffset>-<epoch>.checkpoint)' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand history" -l json -d 'One JSON object an event'
complete -c kseg -n "__fish_kseg_using_subcommand history" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand history" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l group -d 'Only this group (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l state -d 'Only groups in this state: Empty, Stable, Assigning, Reconciling, NotReady (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l type -d 'Only groups of this type (repeatable)' -r -f -a "classic\t''
consumer\t''
share\t''
streams\t''"
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l lagging -d 'Only groups with a committed offset behind its partition\'s log end (partitions in the same log dir)'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -l json -d 'One JSON object per group and per share-partition (no summary line)'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand groups" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l now -d 'The clock: epoch ms, RFC 3339, or an age like 1h [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l max-transaction-timeout-ms -d 'transaction.max.timeout.ms: an open transaction idle longer is a candidate for hanging' -r
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l transaction-partitions -d 'transaction.state.log.num.partitions: how many __transaction_state partitions there are [default: from the log dir\'s metadata image, else 50]' -r
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l transactional-id -d 'Only this transactional id, and its producer\'s open transactions (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l state -d 'Only transactional ids in this state: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l hanging -d 'Only the open transactions that hang, no transactional ids'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -l json -d 'One JSON object per transactional id and per open transaction (no summary line)'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand transactions" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand remote" -l topic -d 'Only this topic\'s partitions (repeatable)' -r
complete -c kseg -n "__fish_kseg_using_subcommand remote" -l json -d 'One JSON object per partition (type remotePartition), and per record not applied (type dropped)'
complete -c kseg -n "__fish_kseg_using_subcommand remote" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand remote" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand report" -s o -l output -d 'Where to write the page' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand report" -l now -d 'The clock for verify and retention-report: epoch ms, RFC 3339, or an age like 1h [default: now]' -r
complete -c kseg -n "__fish_kseg_using_subcommand report" -l since -d 'Only metadata events appended at or after this time' -r
complete -c kseg -n "__fish_kseg_using_subcommand report" -l until -d 'Only metadata events appended at or before this time' -r
complete -c kseg -n "__fish_kseg_using_subcommand report" -s h -l help -d 'Print help'
complete -c kseg -n "__fish_kseg_using_subcommand report" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand generate" -l out-dir -d 'Directory to write into' -r -F
complete -c kseg -n "__fish_kseg_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kseg -n "__fish_kseg_using_subcommand generate" -s V -l version -d 'Print version'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "dump" -d 'Print the contents of Kafka data files, as kafka-dump-log.sh does'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "locate" -d 'Trace Kafka\'s lookup of an offset or a timestamp, step by step'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "verify" -d 'Check CRCs and structure, and say what Kafka\'s recovery will do on its next start'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "recover" -d 'Do offline what Kafka\'s recovery would do (a dry run unless --apply)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "retention-report" -d 'Explain when retention deletes each segment, and why old data is still there'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "rebuild-index" -d 'Rebuild missing or corrupt .index/.timeindex files as Kafka would'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "diverge" -d 'What each replica of a partition truncates when it follows, and which records that loses'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "export" -d 'Print every record as NDJSON or as lines a producer can replay'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "salvage" -d 'Report what reading past damage keeps that Kafka\'s recovery throws away (dry)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "config" -d 'The effective configs of each topic, with where each value comes from'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "restore" -d 'Put back every file a writing command replaced, from its backup directory'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "metadata" -d 'The cluster metadata image __cluster_metadata-0 replays to, and stray replicas'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "history" -d 'Every change the metadata log records, in order, with its time: leaders, ISRs, brokers, configs, …'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "groups" -d 'The consumer groups and committed offsets (with lag) the group coordinator loads from __consumer_offsets'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "transactions" -d 'Each transactional id\'s state, and the transactions left open in the data partitions (hanging ones named)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "remote" -d 'Tiered storage\'s remote segments per partition, as __remote_log_metadata leaves them (stuck uploads and deletes named)'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "report" -d 'One self-contained HTML page of a log dir: timeline, retention, sizes, lag, findings'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "generate" -d 'Generate completions, man pages or the bundled test data'
complete -c kseg -n "__fish_kseg_using_subcommand help; and not __fish_seen_subcommand_from dump locate verify recover retention-report rebuild-index diverge export salvage config restore metadata history groups transactions remote report generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
