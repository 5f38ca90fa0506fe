//! The command line: one `Args` struct per subcommand (clap derive).

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use kseg::format::properties::parse_properties;
use kseg::inspect::cluster::groups::filter::GroupFilter;
use kseg::inspect::cluster::history::HistoryFilter;
use kseg::inspect::cluster::metadata::health::PartitionFilter;
use kseg::inspect::cluster::transactions::filter::TxnFilter;
use kseg::inspect::producer::state::DEFAULT_PRODUCER_ID_EXPIRATION_MS;
use kseg::inspect::retention::report::RetentionFilter;
use kseg::inspect::retention::settings::RetentionFlags;

/// Offline inspection and repair of Apache Kafka's on-disk logs.
#[derive(Debug, Parser)]
#[command(name = "kseg", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// kseg's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the contents of Kafka data files, as kafka-dump-log.sh does
    Dump(DumpArgs),
    /// Trace Kafka's lookup of an offset or a timestamp, step by step
    Locate(LocateArgs),
    /// Check CRCs and structure, and say what Kafka's recovery will do on its next start
    Verify(VerifyArgs),
    /// Do offline what Kafka's recovery would do (a dry run unless --apply)
    Recover(RecoverArgs),
    /// Explain when retention deletes each segment, and why old data is still there
    RetentionReport(RetentionReportArgs),
    /// Rebuild missing or corrupt .index/.timeindex files as Kafka would
    RebuildIndex(RebuildIndexArgs),
    /// What each replica of a partition truncates when it follows, and which records that loses
    Diverge(DivergeArgs),
    /// Print every record as NDJSON or as lines a producer can replay
    Export(ExportArgs),
    /// Report what reading past damage keeps that Kafka's recovery throws away (dry)
    Salvage(SalvageArgs),
    /// The effective configs of each topic, with where each value comes from
    Config(ConfigArgs),
    /// Put back every file a writing command replaced, from its backup directory
    Restore(RestoreArgs),
    /// The cluster metadata image __cluster_metadata-0 replays to, and stray replicas
    Metadata(MetadataArgs),
    /// Every change the metadata log records, in order, with its time: leaders, ISRs, brokers, configs, …
    History(HistoryArgs),
    /// The consumer groups and committed offsets (with lag) the group coordinator loads from __consumer_offsets
    Groups(GroupsArgs),
    /// Each transactional id's state, and the transactions left open in the data partitions (hanging ones named)
    Transactions(TransactionsArgs),
    /// Tiered storage's remote segments per partition, as __remote_log_metadata leaves them (stuck uploads and deletes named)
    Remote(RemoteArgs),
    /// One self-contained HTML page of a log dir: timeline, retention, sizes, lag, findings
    Report(ReportArgs),
    /// Generate completions, man pages or the bundled test data
    #[command(hide = true)]
    Generate(GenerateArgs),
}

/// Arguments of `kseg metadata`.
#[derive(Debug, Args)]
#[command(
    after_help = "Replays the latest snapshot (<endOffset>-<epoch>.checkpoint) and the log after it, as the \
broker's metadata loader does. A snapshot that does not read cleanly (a CRC mismatch, a cut, a record that \
does not decode) is skipped for the next older one, or the log from offset 0, with a warning and exit code 1. \
On a log dir, every partition directory is matched by the topic id in its \
partition.metadata to the image, and those that should not be on this broker (node.id in meta.properties) \
are reported as stray replicas. A summary comes first (topics, partitions, offline, under-replicated, \
under min ISR, leaderless, brokers fenced); the partition filters judge as kafka-topics.sh --describe \
does, and a partition any chosen filter holds for is listed (min.insync.replicas from the image's \
dynamic configs, else Kafka's default 1)."
)]
pub struct MetadataArgs {
    /// A log dir holding __cluster_metadata-0, that directory, or a .checkpoint file
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// The image as of this offset of the metadata log (inclusive)
    #[arg(long, value_name = "N")]
    pub at_offset: Option<i64>,
    /// The image as of this time: through the last batch appended at or before it, the batches
    /// read in log order up to the first appended later (epoch ms, RFC 3339, or an age like 1h)
    #[arg(long, value_name = "TIME", conflicts_with = "at_offset", value_parser = crate::time_arg::parse_time)]
    pub at_time: Option<i64>,
    /// Start from this snapshot (<endOffset>-<epoch>.checkpoint) instead of the newest one that reads cleanly
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// Only this topic's partitions and configs (repeatable)
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,
    /// Only partitions whose ISR is smaller than their replicas
    #[arg(long)]
    pub under_replicated_partitions: bool,
    /// Only partitions with no leader, or whose leader is not a live (unfenced) broker
    #[arg(long)]
    pub unavailable_partitions: bool,
    /// Only partitions with no leader, or whose ISR is smaller than min.insync.replicas
    #[arg(long)]
    pub under_min_isr_partitions: bool,
    /// One JSON object
    #[arg(long)]
    pub json: bool,
}

impl MetadataArgs {
    /// The partitions to list.
    pub fn filter(&self) -> PartitionFilter {
        PartitionFilter {
            topics: self.topic.clone(),
            under_replicated: self.under_replicated_partitions,
            unavailable: self.unavailable_partitions,
            under_min_isr: self.under_min_isr_partitions,
        }
    }
}

/// Arguments of `kseg report`.
#[derive(Debug, Args)]
#[command(
    after_help = "The page is one file with inline CSS and SVG: no script, nothing fetched, so it opens on any \
machine it is copied to. Each figure is drawn from the JSON of a kseg command run on the log dir (verify, \
retention-report, groups, history), named under the figure, and lists its numbers in a table. A command that \
cannot run here (no __consumer_offsets partition, no metadata log) leaves its figure saying why."
)]
pub struct ReportArgs {
    /// A log dir
    pub path: PathBuf,
    /// Where to write the page
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// The clock for verify and retention-report: epoch ms, RFC 3339, or an age like 1h [default: now]
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub now: Option<i64>,
    /// Only metadata events appended at or after this time
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub since: Option<i64>,
    /// Only metadata events appended at or before this time
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub until: Option<i64>,
}

/// Arguments of `kseg history`.
#[derive(Debug, Args)]
#[command(
    after_help = "Replays __cluster_metadata-0 from as early as its files allow: from offset 0 when the log \
starts there (after the bootstrap snapshot 00000000000000000000-0000000000.checkpoint, if any), else from the \
oldest snapshot that reads cleanly and that the log continues; --snapshot FILE picks another. The snapshot's \
records are the state the history starts from, not events. Each record after it that changes the image is an \
event, printed as it is read, with its offset and its batch's append time; the previous values are the image's. \
A record the image refuses (kseg metadata lists them) is no event. Events of a metadata transaction come out \
at its end: an aborted one's are marked aborted and not applied. A controller's election (LeaderChange) and a \
voter-set change (VotersRecord) are controllerChanged events, a KRaftVersionRecord a featureChanged event of \
kraft.version; a controlled shutdown is a brokerFenced or brokerUnfenced event (the broker's fencing as it is \
then) with inControlledShutdown. Exit code 1 when the log stops early at damage."
)]
pub struct HistoryArgs {
    /// A log dir holding __cluster_metadata-0, or that directory
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Only events appended at or after this time (epoch ms, RFC 3339, or an age like 1h)
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub since: Option<i64>,
    /// Only events appended at or before this time
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub until: Option<i64>,
    /// Only events of this topic: its creation and deletion, its partitions, its configs
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,
    /// Only events of this partition (topic-N), and its topic's creation and deletion; on a log
    /// dir holding the partition's directory, then what its files say (segment starts, leader
    /// epoch starts from leader-epoch-checkpoint, producer epoch bumps, aborted transactions,
    /// the recovery point), and each leader election names where its epoch starts there
    #[arg(long, value_name = "TOPIC-N", value_parser = kseg::inspect::cluster::history::filter::parse_partition)]
    pub partition: Option<(String, i32)>,
    /// Only events naming this broker: its registration and fencing, its configs, the
    /// partitions it leads, is in the ISR of or is a replica of (before or after)
    #[arg(long, value_name = "N")]
    pub broker: Option<i32>,
    /// Start from this snapshot (<endOffset>-<epoch>.checkpoint)
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// One JSON object an event
    #[arg(long)]
    pub json: bool,
}

impl HistoryArgs {
    /// The events to print.
    pub fn filter(&self) -> HistoryFilter {
        HistoryFilter {
            since: self.since,
            until: self.until,
            topic: self.topic.clone(),
            partition: self.partition.clone(),
            broker: self.broker,
        }
    }
}

/// How keys, values and header values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// UTF-8 text, falling back to hex for bytes that are not valid UTF-8
    Utf8,
    /// Lower-case hex
    Hex,
    /// Base64
    Base64,
}

/// Arguments of `kseg dump`.
#[derive(Debug, Args)]
#[command(
    after_help = "kafka-dump-log's flag names (--files, --deep-iteration, --print-data-log, \
--verify-index-only, --index-sanity-check, --max-bytes, --skip-record-metadata) are accepted.\n\
Records of Kafka's internal topics (__consumer_offsets, __transaction_state, __cluster_metadata \
and its snapshots, __share_group_state, __remote_log_metadata) are decoded, chosen by the \
partition directory's name; a --*-decoder flag chooses one for copies kept elsewhere.\n\
Reading leaves the page cache as it found it: pages kseg pulled in are dropped after use, \
pages that were cached before stay. Use --keep-cache to leave everything cached."
)]
pub struct DumpArgs {
    /// Files to dump: .log, .index, .timeindex, .txnindex, .snapshot,
    /// checkpoints, partition.metadata, meta.properties, quorum-state; or
    /// a remote segment's .log object by URL (`s3://bucket/key.log`,
    /// `gs://…`, `az://…`, `file:///…`), read in place in Kafka's
    /// LocalTieredStorage layout or Aiven's
    #[arg(required_unless_present = "files")]
    pub paths: Vec<PathBuf>,
    /// Comma-separated files (kafka-dump-log's form)
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<PathBuf>,
    /// Print one line per record
    #[arg(long = "deep-iteration", visible_alias = "deep")]
    pub deep_iteration: bool,
    /// Print keys, values and header values (implies --deep-iteration)
    #[arg(long)]
    pub print_data_log: bool,
    /// Leave out record metadata, keep key and payload
    #[arg(long)]
    pub skip_record_metadata: bool,
    /// How keys, values and header values are printed
    #[arg(long, value_enum, default_value_t = EncodingArg::Utf8)]
    pub encoding: EncodingArg,
    /// Newline-delimited JSON, one object per batch, record or entry
    #[arg(long)]
    pub json: bool,
    /// Check index entries against the .log without printing them
    #[arg(long)]
    pub verify_index_only: bool,
    /// Run Kafka's index sanity check without printing entries
    #[arg(long)]
    pub index_sanity_check: bool,
    /// Only dump whole batches within the first N bytes of a .log
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<u64>,
    /// Accepted for compatibility with kafka-dump-log; has no effect
    #[arg(long, value_name = "SIZE", hide = true)]
    pub max_message_size: Option<u64>,
    /// Largest decompressed batch kseg will hold in memory, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 128 << 20)]
    pub max_decompressed_bytes: usize,
    /// Leave pages kseg reads in the page cache
    #[arg(long)]
    pub keep_cache: bool,
    /// The segment's base offset, for a renamed copy whose name does not
    /// carry it (index entries are stored relative to it)
    #[arg(long, value_name = "N")]
    pub base_offset: Option<i64>,
    /// An RSA private key (PKCS#8 PEM) that unwraps the data keys of
    /// remote segments Aiven's tiered storage encrypted: `ID=PATH` for the
    /// key pair ID its `encryption.key.pairs` names, or `PATH` for any
    #[arg(long, value_name = "[ID=]PEM")]
    pub aiven_private_key: Vec<String>,
    /// Decode records as __consumer_offsets records (implies --print-data-log)
    #[arg(long, group = "decoder")]
    pub offsets_decoder: bool,
    /// Decode records as __transaction_state records (implies --print-data-log)
    #[arg(long, group = "decoder")]
    pub transaction_log_decoder: bool,
    /// Decode records as __cluster_metadata records (implies --print-data-log)
    #[arg(long, group = "decoder")]
    pub cluster_metadata_decoder: bool,
    /// Decode records as __remote_log_metadata records (implies --print-data-log)
    #[arg(long, group = "decoder")]
    pub remote_log_metadata_decoder: bool,
    /// Decode records as __share_group_state records (implies --print-data-log)
    #[arg(long, group = "decoder")]
    pub share_group_state_decoder: bool,
    /// Print internal topics' keys and values as raw bytes, undecoded
    #[arg(long, group = "decoder")]
    pub no_decode: bool,
}

/// What `kseg generate` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateWhat {
    /// Shell completions (bash, zsh, fish)
    Completions,
    /// Man pages
    Man,
    /// The bundled test partition
    Testdata,
}

/// Arguments of the hidden `kseg generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to generate
    #[arg(value_enum)]
    pub what: GenerateWhat,
    /// Directory to write into
    #[arg(long)]
    pub out_dir: PathBuf,
}

/// Options shared by commands that write into partition directories.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Where copies of replaced files go; must not exist yet [default: a new ./kseg-backup-<unix ms>-<pid>]
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,
    /// Write even if a process holds the log dir's .lock (dangerous)
    #[arg(long)]
    pub ignore_lock: bool,
}

/// Arguments of `kseg rebuild-index`.
#[derive(Debug, Args)]
#[command(
    after_help = "The rebuilt files match Kafka's byte for byte only with the topic's \
index.interval.bytes: by default kseg takes it from the topic's config when the metadata log \
(the log dir's __cluster_metadata-0, or --metadata) or --server-properties sets it, else infers it \
from the offset indexes Kafka already wrote (and says which); pass --index-interval-bytes when none can tell it. An index that differs \
from the rebuild but is consistent with the log (grouped by a follower or the cleaner) is \
left alone unless --force."
)]
pub struct RebuildIndexArgs {
    /// A segment .log, a partition directory or a log dir
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The topic's index.interval.bytes, or `auto`: inferred from the
    /// partition's existing offset indexes (4096, Kafka's default, when
    /// they tell nothing)
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = parse_index_interval)]
    pub index_interval_bytes: IndexIntervalArg,
    /// Compare existing indexes with the rebuild and write nothing (exit 1 if any needs a rebuild)
    #[arg(long)]
    pub check: bool,
    /// Print what would be written, write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Rewrite every index, not only missing, corrupt or different ones
    #[arg(long)]
    pub force: bool,
    /// Check each batch's CRC; stop a segment's rebuild at the first bad batch, as recovery does
    #[arg(long)]
    pub verify: bool,
    /// Do not keep copies of replaced files
    #[arg(long)]
    pub no_backup: bool,
    /// Output as newline-delimited JSON
    #[arg(long)]
    pub json: bool,
    /// Write options
    #[command(flatten)]
    pub write: WriteArgs,
    /// Where topic configs come from
    #[command(flatten)]
    pub cluster: ClusterConfigArgs,
}

/// `--index-interval-bytes`: a number of bytes, or `None` for `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexIntervalArg(pub Option<u64>);

fn parse_index_interval(s: &str) -> Result<IndexIntervalArg, String> {
    if s == "auto" {
        return Ok(IndexIntervalArg(None));
    }
    s.parse::<u64>()
        .map(|n| IndexIntervalArg(Some(n)))
        .map_err(|_| format!("expected a number of bytes or `auto`, not {s:?}"))
}

/// Arguments of `kseg locate`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["offset", "timestamp"]))]
pub struct LocateArgs {
    /// The partition directory, or a .log segment in it
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Offset to find
    #[arg(long, allow_negative_numbers = true)]
    pub offset: Option<i64>,
    /// Timestamp to find: epoch ms, RFC 3339 (2024-05-01T12:00:00Z) or an age like 1h, 30m, 2d
    #[arg(long, value_parser = crate::time_arg::parse_time)]
    pub timestamp: Option<i64>,
    /// The log start offset [default: log-start-offset-checkpoint, else the first segment's base offset]
    #[arg(long)]
    pub log_start_offset: Option<i64>,
    /// Also decode and print the record found
    #[arg(long)]
    pub deep: bool,
    /// Where tiered storage's __remote_log_metadata-N partitions are, for
    /// an offset below the local log start (repeatable) [default: the
    /// partition's log dir]
    #[arg(long, value_name = "PATH")]
    pub remote_log_metadata: Vec<PathBuf>,
    /// Search indexes as a broker opening these files without recovery
    /// would: every slot, a preallocated zero tail included (default: the
    /// real entries, as a running broker or one that recovered them)
    #[arg(long)]
    pub as_opened: bool,
    /// Print the whole trace as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `kseg diverge`.
#[derive(Debug, Args)]
#[command(
    after_help = "Read-only: give copies of the same partition directory taken from each broker \
(their parent directory is taken as the broker's log dir, for replication-offset-checkpoint). \
Each log is taken as Kafka's recovery leaves it; each epoch cache from leader-epoch-checkpoint, \
or rebuilt from the batches' partition leader epochs where it is missing or disagrees."
)]
pub struct DivergeArgs {
    /// The replicas: the same partition directory from different brokers
    /// (at least two, counting --leader)
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The leader [default: the highest latest leader epoch, then the largest log end offset]
    #[arg(long, value_name = "DIR")]
    pub leader: Option<PathBuf>,
    /// Newline-delimited JSON, one object per follower
    #[arg(long)]
    pub json: bool,
    /// Write each follower's lost batches, verbatim, as a partition
    /// directory under DIR (which must not exist yet)
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
}

/// Arguments of `kseg restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup directory a writing command printed
    pub backup: PathBuf,
    /// Write even if a process holds the log dir's .lock (dangerous)
    #[arg(long)]
    pub ignore_lock: bool,
}

/// What `verify` and `recover` analyse.
#[derive(Debug, Args)]
pub struct RecoveryTargetArgs {
    /// A partition directory, a log dir, or a segment .log (its whole
    /// partition is checked: Kafka's recovery is per partition)
    pub paths: Vec<PathBuf>,
    /// Recovery point to assume [default: recovery-point-offset-checkpoint, else 0]
    #[arg(long, value_name = "OFFSET")]
    pub recovery_point: Option<i64>,
    /// The topic's index.interval.bytes (for the indexes recovery
    /// rebuilds), or `auto`: inferred from the partition's existing offset
    /// indexes (4096, Kafka's default, when they tell nothing)
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = parse_index_interval)]
    pub index_interval_bytes: IndexIntervalArg,
    /// Also decompress and decode every record and check it against its batch
    #[arg(long)]
    pub deep: bool,
    /// Output as newline-delimited JSON, one object per partition
    #[arg(long)]
    pub json: bool,
    /// What reading leaves in the page cache
    #[arg(long, value_enum, value_name = "MODE", default_value_t = PageCacheArg::Auto)]
    pub page_cache: PageCacheArg,
    /// The broker's clock when it starts: epoch ms, RFC 3339, or an age
    /// like 1h [default: now]
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub now: Option<i64>,
    /// The broker's producer.id.expiration.ms: producers idle this long are
    /// dropped when a producer snapshot is loaded
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_PRODUCER_ID_EXPIRATION_MS)]
    pub producer_id_expiration_ms: i64,
    /// Where topic configs come from
    #[command(flatten)]
    pub cluster: ClusterConfigArgs,
}

/// What reading every byte of a partition leaves in the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PageCacheArg {
    /// restore while a broker holds the log dir's .lock, keep otherwise
    Auto,
    /// leave what kseg read cached: the broker's own recovery reads the
    /// same segments when it starts
    Keep,
    /// drop the pages kseg pulled in; pages cached before stay, so a live
    /// broker's consumers keep theirs
    Restore,
}
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("what").required(true).multiple(true).args(["paths", "remote"])))]
#[command(
    override_usage = "kseg verify [OPTIONS] <PATHS>...\n       kseg verify [OPTIONS] --remote <URL> [PATHS]..."
)]
pub struct VerifyArgs {
    /// Targets and recovery inputs
    #[command(flatten)]
    pub target: RecoveryTargetArgs,
    /// Also check every remote segment under this object-store prefix
    /// (`s3://bucket/prefix`, `gs://…`, `az://…`, `file:///dir`), stored
    /// by Kafka's LocalTieredStorage or Aiven's tiered storage, read in
    /// place: CRCs, batches and indexes (credentials and endpoint from the
    /// store's usual environment variables)
    #[arg(long, value_name = "URL")]
    pub remote: Vec<String>,
    /// An RSA private key (PKCS#8 PEM) that unwraps the data keys of
    /// segments Aiven's tiered storage encrypted: `ID=PATH` for the key
    /// pair ID its `encryption.key.pairs` names, or `PATH` for any
    #[arg(long, value_name = "[ID=]PEM")]
    pub aiven_private_key: Vec<String>,
}

/// Arguments of `kseg recover`.
#[derive(Debug, Args)]
#[command(
    after_help = "Without --apply this only prints the plan. With --apply every file is copied to the \
backup directory before it changes; `kseg recover --undo BACKUP` (or `kseg restore BACKUP`) puts them back."
)]
#[command(group(ArgGroup::new("what").required(true).args(["paths", "undo"])))]
#[command(
    override_usage = "kseg recover [OPTIONS] <PATHS>...\n       kseg recover --undo <BACKUP>"
)]
pub struct RecoverArgs {
    /// Targets and recovery inputs
    #[command(flatten)]
    pub target: RecoveryTargetArgs,
    /// Put back the files a previous `recover --apply` changed
    #[arg(long, value_name = "BACKUP", conflicts_with = "apply")]
    pub undo: Option<PathBuf>,
    /// Carry the plan out
    #[arg(long)]
    pub apply: bool,
    /// Instead of Kafka's truncation, cut out only the damaged byte ranges
    /// and keep every valid batch and segment after them (the log then has
    /// an offset gap, as a compacted log does)
    #[arg(long, conflicts_with = "undo")]
    pub salvage: bool,
    /// Write options
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Where topic configs come from, besides Kafka's defaults.
#[derive(Debug, Clone, Args)]
pub struct ClusterConfigArgs {
    /// The metadata log to take topic configs from: a __cluster_metadata-0
    /// directory or the log dir holding one [default: the log dir's own, when it has one]
    #[arg(long, value_name = "DIR")]
    pub metadata: Option<PathBuf>,
    /// The broker's server.properties: its log.* settings are the
    /// STATIC_BROKER_CONFIG layer, and it gives node.id, offsets.topic.segment.bytes,
    /// transaction.state.log.segment.bytes, metadata.log.segment.bytes and metadata.max.retention.*
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
}

/// Arguments of `kseg config`.
#[derive(Debug, Args)]
#[command(
    after_help = "Topics: those the metadata image names, and the partition directories of the \
log dir (a partition directory as PATH: its topic only; __cluster_metadata-0 as PATH: every topic \
its image names). Sources are named as Kafka's \
DescribeConfigs names them (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG for this broker's \
node.id, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG from --server-properties, \
DEFAULT_CONFIG), with the metadata log offset of the record that set a dynamic value; \
INTERNAL_TOPIC_RULE marks a value the broker's own code gives an internal topic \
(__consumer_offsets, __transaction_state, __cluster_metadata)."
)]
pub struct ConfigArgs {
    /// A log dir, a partition directory, or __cluster_metadata-0
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Only this topic (repeatable)
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,
    /// Print every config, Kafka's defaults included (JSON always has them all)
    #[arg(long)]
    pub all: bool,
    /// Whose defaults apply where Kafka's differ
    #[arg(long, value_enum, default_value = "4")]
    pub kafka_version: KafkaVersion,
    /// One JSON object per topic
    #[arg(long)]
    pub json: bool,
    /// Where topic configs come from
    #[command(flatten)]
    pub cluster: ClusterConfigArgs,
}

/// Kafka major version whose defaults apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KafkaVersion {
    /// Kafka 3.x defaults
    #[value(name = "3")]
    V3,
    /// Kafka 4.x defaults (message.timestamp.after.max.ms = 1 h)
    #[value(name = "4")]
    V4,
}

impl KafkaVersion {
    /// The major version.
    pub fn major(self) -> u8 {
        match self {
            Self::V3 => 3,
            Self::V4 => 4,
        }
    }
}

/// Arguments of `kseg retention-report`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each topic's settings come from, first to last: --config TOPIC:NAME=VALUE, \
--config NAME=VALUE and --config-file; the topic's override in the metadata log (the log dir's \
__cluster_metadata-0, or --metadata); this broker's and the cluster's dynamic broker configs; \
--server-properties; Kafka's defaults. Internal topics follow the broker's own rules: \
__consumer_offsets and __transaction_state are compacted with 100 MiB segments, and \
__cluster_metadata is deleted only below its snapshots, by metadata.max.retention.bytes and \
metadata.max.retention.ms (both settable with --config). The settings lines say where each value came from."
)]
pub struct RetentionReportArgs {
    /// A partition directory or a log dir
    pub path: PathBuf,
    /// A topic or broker setting, by Kafka's name (repeatable), e.g.
    /// retention.ms=604800000; TOPIC:NAME=VALUE sets it for one topic only
    #[arg(long = "config", value_name = "[TOPIC:]NAME=VALUE")]
    pub configs: Vec<String>,
    /// A properties file of settings (applied before --config)
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Whose defaults apply where Kafka's differ
    #[arg(long, value_enum, default_value = "4")]
    pub kafka_version: KafkaVersion,
    /// The clock: epoch ms, RFC 3339, or an age like 1h [default: now]
    #[arg(long, value_parser = crate::time_arg::parse_time)]
    pub now: Option<i64>,
    /// The log start offset [default: log-start-offset-checkpoint, else the first segment's base offset]
    #[arg(long)]
    pub log_start_offset: Option<i64>,
    /// The high watermark [default: replication-offset-checkpoint, else the log end offset]
    #[arg(long)]
    pub high_watermark: Option<i64>,
    /// Where tiered storage's __remote_log_metadata-N partitions are, for
    /// a tiered topic's local retention (repeatable) [default: the log dir]
    #[arg(long, value_name = "PATH")]
    pub remote_log_metadata: Vec<PathBuf>,
    /// Only this topic's partitions (repeatable)
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,
    /// Only partitions a retention check now deletes segments from
    #[arg(long)]
    pub deletable_now: bool,
    /// Only partitions with a warning (old timestamps, small segments, a compacted topic, ...)
    #[arg(long)]
    pub with_warnings: bool,
    /// One JSON object per partition
    #[arg(long)]
    pub json: bool,
    /// Where topic configs come from
    #[command(flatten)]
    pub cluster: ClusterConfigArgs,
}

impl RetentionReportArgs {
    /// The partitions to list.
    pub fn filter(&self) -> RetentionFilter {
        RetentionFilter {
            topics: self.topic.clone(),
            deletable_now: self.deletable_now,
            with_warnings: self.with_warnings,
        }
    }

    /// `--config-file` then `--config`, read and checked.
    pub fn flags(&self) -> anyhow::Result<RetentionFlags> {
        let file = match &self.config_file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                let settings: BTreeMap<String, String> =
                    parse_properties(&text).into_iter().collect();
                Some((path.display().to_string(), settings))
            }
            None => None,
        };
        let file = file
            .as_ref()
            .map(|(name, settings)| (name.as_str(), settings));
        RetentionFlags::parse(file, &self.configs).map_err(anyhow::Error::msg)
    }
}

/// Arguments of `kseg groups`.
#[derive(Debug, Args)]
#[command(
    after_help = "Reads every __consumer_offsets-N partition under PATH as the group coordinator \
loads it: record by record, tombstones applied, transactional offset commits committed at their \
producer's COMMIT marker, dropped at ABORT, and shown as pending while no marker follows. Lag is \
the log end offset of a committed partition whose directory is in the same log dir, minus the \
committed offset. Writes nothing. Exit 1 when something did not read (file and byte position on stderr)."
)]
pub struct GroupsArgs {
    /// Log dirs, or __consumer_offsets-N directories
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Only this group (repeatable)
    #[arg(long, value_name = "G")]
    pub group: Vec<String>,
    /// Only groups in this state: Empty, Stable, Assigning, Reconciling, NotReady (repeatable)
    #[arg(long, value_name = "STATE")]
    pub state: Vec<String>,
    /// Only groups of this type (repeatable)
    #[arg(long = "type", value_name = "TYPE", value_parser = ["classic", "consumer", "share", "streams"])]
    pub group_type: Vec<String>,
    /// Only groups with a committed offset behind its partition's log end (partitions in the same log dir)
    #[arg(long)]
    pub lagging: bool,
    /// One JSON object per group and per share-partition (no summary line)
    #[arg(long)]
    pub json: bool,
}

impl GroupsArgs {
    /// The groups to list.
    pub fn filter(&self) -> GroupFilter {
        GroupFilter {
            ids: self.group.clone(),
            states: self.state.clone(),
            types: self.group_type.clone(),
            lagging: self.lagging,
        }
    }
}

/// Arguments of `kseg remote`.
#[derive(Debug, Args)]
#[command(
    after_help = "Replays every __remote_log_metadata-N partition under PATH as the broker's \
RemoteLogMetadataCache rebuilds it: a segment enters in COPY_SEGMENT_STARTED, moves only by the \
transitions Kafka accepts, and leaves at DELETE_SEGMENT_FINISHED; DELETE_PARTITION_FINISHED \
forgets its partition. Partitions are named topicId:topic-partition. A segment left in \
COPY_SEGMENT_STARTED or DELETE_SEGMENT_STARTED (an upload or delete that never finished) is \
marked STUCK. Writes nothing. Exit 1 when a segment is stuck, a record is not applied or a \
batch does not read."
)]
pub struct RemoteArgs {
    /// A log dir or __remote_log_metadata-N directories
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Only this topic's partitions (repeatable)
    #[arg(long)]
    pub topic: Vec<String>,
    /// One JSON object per partition (type remotePartition), and per record not applied (type dropped)
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `kseg transactions`.
#[derive(Debug, Args)]
#[command(
    after_help = "Reads every __transaction_state-N partition under PATH as the transaction \
coordinator loads it, and rebuilds the producer state of every other partition to find the \
transactions left open there. An open transaction whose producer last wrote more than \
--max-transaction-timeout-ms ago hangs when the coordinator has no transaction for that \
producer including the partition (kafka-transactions.sh find-hanging's rule); kseg prints what \
kafka-transactions.sh abort needs. Writes nothing. Exit 1 when a transaction hangs or something \
did not read."
)]
pub struct TransactionsArgs {
    /// Log dirs or partition directories: __transaction_state-N and data partitions, read together
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// The clock: epoch ms, RFC 3339, or an age like 1h [default: now]
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub now: Option<i64>,
    /// transaction.max.timeout.ms: an open transaction idle longer is a candidate for hanging
    #[arg(long, value_name = "MS", default_value_t = kseg::inspect::cluster::transactions::hanging::DEFAULT_MAX_TRANSACTION_TIMEOUT_MS)]
    pub max_transaction_timeout_ms: i64,
    /// transaction.state.log.num.partitions: how many __transaction_state partitions there are [default: from the log dir's metadata image, else 50]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub transaction_partitions: Option<i32>,
    /// Only this transactional id, and its producer's open transactions (repeatable)
    #[arg(long, value_name = "ID")]
    pub transactional_id: Vec<String>,
    /// Only transactional ids in this state: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence (repeatable)
    #[arg(long, value_name = "STATE")]
    pub state: Vec<String>,
    /// Only the open transactions that hang, no transactional ids
    #[arg(long)]
    pub hanging: bool,
    /// One JSON object per transactional id and per open transaction (no summary line)
    #[arg(long)]
    pub json: bool,
}

impl TransactionsArgs {
    /// What to list.
    pub fn filter(&self) -> TxnFilter {
        TxnFilter {
            ids: self.transactional_id.clone(),
            states: self.state.clone(),
            hanging: self.hanging,
        }
    }
}

/// How `kseg export` writes records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormatArg {
    /// One JSON object per record (NDJSON)
    #[value(alias = "ndjson")]
    Json,
    /// KEY<separator>VALUE lines, as kafka-console-producer (parse.key=true) and kcat -K read them
    Line,
    /// An Apache Parquet file (needs --output): one row per record, zstd-compressed
    Parquet,
}

/// Arguments of `kseg export`.
#[derive(Debug, Args)]
#[command(
    after_help = "Records come in offset order, one partition after another. Bounds are \
inclusive. Reading stops at a damaged batch (file and byte position on stderr, exit 1), as \
Kafka's readers stop; --salvage reads on from the next batch that validates and prints the \
salvage report on stderr (exit 1 when anything was damaged).\n\
JSON fields: partition, offset, timestamp, timestampType, key, value, headers [{key, value}], \
producerId, producerEpoch, sequence, partitionLeaderEpoch, isTransactional, isControl (and \
controlType for control records). \
With --encoding utf8, bytes that are not valid UTF-8 are written in hex and marked by a sibling \
keyEncoding/valueEncoding field set to \"hex\".\n\
--format line writes KEY<separator>VALUE lines for `kafka-console-producer --property \
parse.key=true --property key.separator=<separator>` (add `--property null.marker=<marker>` with \
--null-marker) or `kcat -P -K <separator>`. Both split at the first separator, so a key must not \
hold it; a record that cannot be written so that it reads back as itself (not UTF-8, a line \
break, a null without --null-marker) stops the export with its offset named (exit 2). Headers are \
left out of lines (counted on stderr).\n\
--format parquet writes the same fields as columns (topic and partition parsed from the \
directory name; key, value and header values as bytes; header keys as text) to --output, in \
row groups of bounded size; the file is written beside its name and renamed into place when \
complete."
)]
pub struct ExportArgs {
    /// A segment .log, a partition directory or a log dir
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output form
    #[arg(long, value_enum, default_value_t = ExportFormatArg::Json)]
    pub format: ExportFormatArg,
    /// How keys, values and header values are written in JSON
    #[arg(long, value_enum, default_value_t = EncodingArg::Utf8)]
    pub encoding: EncodingArg,
    /// Between key and value in --format line [default: a tab, as the console producer's key.separator]
    #[arg(
        long,
        value_name = "SEP",
        default_value = "\t",
        hide_default_value = true
    )]
    pub key_separator: String,
    /// Stands for a null key or value in --format line (the console producer's null.marker)
    #[arg(long, value_name = "TEXT")]
    pub null_marker: Option<String>,
    /// First offset exported
    #[arg(long, value_name = "OFFSET")]
    pub from_offset: Option<i64>,
    /// Last offset exported
    #[arg(long, value_name = "OFFSET")]
    pub to_offset: Option<i64>,
    /// Earliest timestamp exported: epoch ms, RFC 3339 or an age like 1h
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub from_time: Option<i64>,
    /// Latest timestamp exported: epoch ms, RFC 3339 or an age like 1h
    #[arg(long, value_parser = crate::time_arg::parse_time, value_name = "TIME")]
    pub to_time: Option<i64>,
    /// Also export control records (transaction markers, KRaft control records)
    #[arg(long)]
    pub include_control: bool,
    /// Read past damaged batches: resynchronize at the next batch that validates
    #[arg(long)]
    pub salvage: bool,
    /// Largest batch, and largest decompressed batch, kseg will hold in memory, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 128 << 20)]
    pub max_decompressed_bytes: usize,
    /// Write to this file instead of stdout (required for --format parquet)
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `kseg salvage`.
#[derive(Debug, Args)]
#[command(
    after_help = "Writes nothing. Exit 0 when nothing is damaged, 1 otherwise. \
`kseg export --salvage` writes the records kept."
)]
pub struct SalvageArgs {
    /// A segment .log, a partition directory or a log dir
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// One JSON object per partition
    #[arg(long)]
    pub json: bool,
    /// Largest batch, and largest decompressed batch, kseg will hold in memory, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 128 << 20)]
    pub max_decompressed_bytes: usize,
}
