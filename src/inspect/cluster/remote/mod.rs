//! Tiered storage's `__remote_log_metadata` replayed as the broker's
//! `RemotePartitionMetadataStore` and its per-partition
//! `RemoteLogMetadataCache` rebuild it: every remote segment that has not
//! reached DELETE_SEGMENT_FINISHED, with its state, and each partition's
//! delete state. State is proportional to segments, not records.
//!
//! The rules (Kafka's storage module, 4.2): a segment enters only in
//! COPY_SEGMENT_STARTED (`RemoteLogMetadataCache.addCopyInProgressSegment`);
//! an update for an unknown segment is refused; a transition
//! `RemoteLogSegmentState.isValidTransition` rejects is dropped (STARTED to
//! FINISHED or DELETE_SEGMENT_STARTED, FINISHED to DELETE_SEGMENT_STARTED,
//! DELETE_SEGMENT_STARTED to DELETE_SEGMENT_FINISHED, and a state to
//! itself); an update replaces the segment's broker, event time and custom
//! metadata (`RemoteLogSegmentMetadata.createWithUpdates`);
//! DELETE_SEGMENT_FINISHED removes the segment; DELETE_PARTITION_FINISHED
//! removes the partition (`RemotePartitionMetadataStore.handleRemotePartitionDeleteMetadata`).

pub mod epoch_index;
pub mod highest;
pub mod load;
pub mod object_key;
pub mod placement;

use std::collections::BTreeMap;

use serde_json::Value;

use epoch_index::EpochIndex;

/// A remote segment's state (DELETE_SEGMENT_FINISHED removes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SegmentState {
    /// COPY_SEGMENT_STARTED (0): the upload began.
    CopyStarted,
    /// COPY_SEGMENT_FINISHED (1): the segment is in remote storage.
    CopyFinished,
    /// DELETE_SEGMENT_STARTED (2): its deletion began.
    DeleteStarted,
    /// DELETE_SEGMENT_FINISHED (3): deleted.
    DeleteFinished,
}

impl SegmentState {
    /// The state a record's `remoteLogSegmentState` byte names.
    pub fn from_id(id: i64) -> Option<Self> {
        Some(match id {
            0 => Self::CopyStarted,
            1 => Self::CopyFinished,
            2 => Self::DeleteStarted,
            3 => Self::DeleteFinished,
            _ => return None,
        })
    }

    /// Kafka's name of the state.
    pub fn name(self) -> &'static str {
        match self {
            Self::CopyStarted => "COPY_SEGMENT_STARTED",
            Self::CopyFinished => "COPY_SEGMENT_FINISHED",
            Self::DeleteStarted => "DELETE_SEGMENT_STARTED",
            Self::DeleteFinished => "DELETE_SEGMENT_FINISHED",
        }
    }

    /// Whether Kafka accepts going from `from` (`None`: a new segment) to `self`.
    fn accepted_from(self, from: Option<Self>) -> bool {
        match from {
            None => self == Self::CopyStarted,
            Some(f) if f == self => true,
            Some(Self::CopyStarted) => matches!(self, Self::CopyFinished | Self::DeleteStarted),
            Some(Self::CopyFinished) => self == Self::DeleteStarted,
            Some(Self::DeleteStarted) => self == Self::DeleteFinished,
            Some(Self::DeleteFinished) => false,
        }
    }
}

/// One remote segment as the cache holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSegment {
    /// The segment's id (base64 UUID).
    pub id: String,
    /// First offset in the segment.
    pub start_offset: i64,
    /// Last offset in the segment.
    pub end_offset: i64,
    /// Largest record timestamp in it.
    pub max_timestamp_ms: i64,
    /// Broker of the latest event.
    pub broker_id: i64,
    /// Time of the latest event.
    pub event_timestamp_ms: i64,
    /// Size of the segment in bytes.
    pub size_in_bytes: i64,
    /// Leader epoch to its start offset in the segment.
    pub leader_epochs: BTreeMap<i64, i64>,
    /// The latest event's custom metadata (base64), if any.
    pub custom_metadata: Option<String>,
    /// Its state.
    pub state: SegmentState,
    /// Offset of the record that put it in this state.
    pub since_offset: i64,
}

/// One partition's remote state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemotePartition {
    /// Segments by id.
    pub segments: BTreeMap<String, RemoteSegment>,
    /// The latest partition delete state (MARKED, STARTED), if any.
    pub delete_state: Option<&'static str>,
    /// Each leader epoch a segment named when its upload started, with the
    /// highest offset of that epoch in a finished upload (`None`: none
    /// finished yet), as `RemoteLogMetadataCache.highestOffsetForEpoch`
    /// answers: it never goes down, not even when the segment is deleted.
    pub highest_offset_for_epoch: BTreeMap<i64, Option<i64>>,
    /// Which finished segment serves each epoch's offsets.
    pub epoch_index: EpochIndex,
}

impl RemotePartition {
    /// Whether `segment` is finished but no epoch maps an offset to it: a
    /// longer upload replaced it, no fetch reads it, and its objects take
    /// space until remote retention removes them.
    pub fn is_replaced(&self, segment: &RemoteSegment) -> bool {
        segment.state == SegmentState::CopyFinished && !self.epoch_index.references(&segment.id)
    }

    /// The segment a fetch of `offset` in leader epoch `epoch` reads, as
    /// `RemoteLogMetadataCache.remoteLogSegmentMetadata` answers: the
    /// finished segment whose part of the epoch starts nearest at or below
    /// `offset`, if the epoch's part of it reaches `offset`.
    pub fn segment_for(&self, epoch: i64, offset: i64) -> Option<&RemoteSegment> {
        let (_, id) = self.epoch_index.floor(epoch, offset)?;
        let segment = self.segments.get(id)?;
        let end = segment
            .epoch_ends()
            .find(|&(e, _)| e == epoch)
            .map_or(segment.end_offset, |(_, end)| end);
        (offset <= end).then_some(segment)
    }
}

impl RemoteSegment {
    /// Where each of its leader epochs ends in it: the next epoch's start
    /// offset minus one, the segment's end offset for the last.
    pub fn epoch_ends(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        let mut epochs = self.leader_epochs.iter().peekable();
        std::iter::from_fn(move || {
            let (&epoch, _) = epochs.next()?;
            let end = epochs
                .peek()
                .map_or(self.end_offset, |(_, next)| **next - 1);
            Some((epoch, end))
        })
    }
}

/// A record the broker would not apply, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Offset of the record in `__remote_log_metadata`.
    pub offset: i64,
    /// What Kafka does with it.
    pub why: String,
}

/// The replayed state: partitions keyed `topicId:topic-partition` (Kafka's
/// `TopicIdPartition` spelling).
#[derive(Debug, Clone, Default)]
pub struct RemoteLogState {
    /// Every partition still known.
    pub partitions: BTreeMap<String, RemotePartition>,
    /// Records the broker drops or refuses.
    pub dropped: Vec<Dropped>,
}

fn int(v: &Value, field: &str) -> Result<i64, String> {
    v[field]
        .as_i64()
        .ok_or_else(|| format!("no integer {field}"))
}

fn partition_key(tp: &Value) -> Result<String, String> {
    let name = tp["name"].as_str().ok_or("no topic name")?;
    let id = tp["id"].as_str().ok_or("no topic id")?;
    Ok(format!("{id}:{name}-{}", int(tp, "partition")?))
}

fn segment_id(data: &Value) -> Result<(String, String), String> {
    let id = &data["remoteLogSegmentId"];
    let key = partition_key(&id["topicIdPartition"])?;
    let seg = id["id"].as_str().ok_or("no segment id")?.to_string();
    Ok((key, seg))
}

fn state(data: &Value) -> Result<SegmentState, String> {
    let id = int(data, "remoteLogSegmentState")?;
    SegmentState::from_id(id).ok_or_else(|| format!("unknown segment state {id}"))
}

impl RemoteLogState {
    /// Applies one decoded record (`{type, version, data}` as
    /// [`crate::schema::decode_record`] gives it) at `offset`; a record
    /// that does not read as one of the record types is an error.
    pub fn apply(&mut self, offset: i64, value: &Value) -> Result<(), String> {
        let data = &value["data"];
        match value["type"].as_str() {
            Some("REMOTE_LOG_SEGMENT_METADATA_RECORD") => self.add(offset, data),
            Some("REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD") => self.update(offset, data),
            Some("REMOTE_PARTITION_DELETE_METADATA_RECORD") => self.partition_delete(data),
            Some(other) => Err(format!("{other} is not replayed")),
            None => Err("no record type".to_string()),
        }
    }

    fn drop(&mut self, offset: i64, why: String) {
        self.dropped.push(Dropped { offset, why });
    }

    fn add(&mut self, offset: i64, data: &Value) -> Result<(), String> {
        let (key, id) = segment_id(data)?;
        let target = state(data)?;
        let existing = self
            .partitions
            .get(&key)
            .and_then(|p| p.segments.get(&id))
            .map(|s| s.state);
        if target != SegmentState::CopyStarted {
            self.drop(
                offset,
                format!(
                    "segment {id} added in {}, not COPY_SEGMENT_STARTED (refused)",
                    target.name()
                ),
            );
            return Ok(());
        }
        if !target.accepted_from(existing) {
            self.drop(
                offset,
                format!("segment {id}: no transition to {}", target.name()),
            );
            return Ok(());
        }
        let mut leader_epochs = BTreeMap::new();
        for e in data["segmentLeaderEpochs"]
            .as_array()
            .ok_or("no segmentLeaderEpochs")?
        {
            leader_epochs.insert(int(e, "leaderEpoch")?, int(e, "offset")?);
        }
        let segment = RemoteSegment {
            id: id.clone(),
            start_offset: int(data, "startOffset")?,
            end_offset: int(data, "endOffset")?,
            max_timestamp_ms: int(data, "maxTimestampMs")?,
            broker_id: int(data, "brokerId")?,
            event_timestamp_ms: int(data, "eventTimestampMs")?,
            size_in_bytes: int(data, "segmentSizeInBytes")?,
            leader_epochs,
            custom_metadata: data["customMetadata"].as_str().map(str::to_string),
            state: target,
            since_offset: offset,
        };
        let partition = self.partitions.entry(key).or_default();
        for &epoch in segment.leader_epochs.keys() {
            partition
                .highest_offset_for_epoch
                .entry(epoch)
                .or_insert(None);
        }
        partition.segments.insert(id, segment);
        Ok(())
    }

    fn update(&mut self, offset: i64, data: &Value) -> Result<(), String> {
        let (key, id) = segment_id(data)?;
        let target = state(data)?;
        let Some(partition) = self.partitions.get_mut(&key) else {
            self.drop(
                offset,
                format!("update of unknown segment {id} of {key} (refused)"),
            );
            return Ok(());
        };
        let Some(segment) = partition.segments.get_mut(&id) else {
            self.drop(
                offset,
                format!("update of unknown segment {id} of {key} (refused)"),
            );
            return Ok(());
        };
        if target == SegmentState::CopyStarted || !target.accepted_from(Some(segment.state)) {
            let why = format!(
                "segment {id}: {} to {} is not a transition Kafka accepts (dropped)",
                segment.state.name(),
                target.name()
            );
            self.drop(offset, why);
            return Ok(());
        }
        if target == SegmentState::DeleteFinished {
            partition.segments.remove(&id);
            return Ok(());
        }
        if target == SegmentState::CopyFinished {
            for (epoch, end) in segment.epoch_ends() {
                let highest = partition
                    .highest_offset_for_epoch
                    .entry(epoch)
                    .or_insert(None);
                let start = segment.leader_epochs[&epoch];
                partition
                    .epoch_index
                    .finish(epoch, start, end, &id, *highest);
                *highest = Some(highest.map_or(end, |h| h.max(end)));
            }
        }
        if target == SegmentState::DeleteStarted {
            for (&epoch, &start) in &segment.leader_epochs {
                partition.epoch_index.remove(epoch, start, &id);
            }
        }
        segment.state = target;
        segment.broker_id = int(data, "brokerId")?;
        segment.event_timestamp_ms = int(data, "eventTimestampMs")?;
        segment.custom_metadata = data["customMetadata"].as_str().map(str::to_string);
        segment.since_offset = offset;
        Ok(())
    }

    fn partition_delete(&mut self, data: &Value) -> Result<(), String> {
        let key = partition_key(&data["topicIdPartition"])?;
        let name = match int(data, "remotePartitionDeleteState")? {
            0 => "DELETE_PARTITION_MARKED",
            1 => "DELETE_PARTITION_STARTED",
            2 => {
                self.partitions.remove(&key);
                return Ok(());
            }
            other => return Err(format!("unknown partition delete state {other}")),
        };
        self.partitions.entry(key).or_default().delete_state = Some(name);
        Ok(())
    }

    /// Segments left in a STARTED state: an upload or delete that never
    /// finished, with their partition.
    pub fn stuck(&self) -> impl Iterator<Item = (&str, &RemoteSegment)> {
        self.partitions.iter().flat_map(|(k, p)| {
            p.segments
                .values()
                .filter(|s| {
                    matches!(
                        s.state,
                        SegmentState::CopyStarted | SegmentState::DeleteStarted
                    )
                })
                .map(move |s| (k.as_str(), s))
        })
    }
}
