//! `kseg export --format parquet`: records as an Apache Parquet file, one
//! row per record, for the engines people load records into (DuckDB,
//! Spark, pandas). Rows are gathered into Arrow batches of a bounded size
//! and written as row groups of a bounded size, so memory does not grow
//! with the partition.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Int16Builder, Int32Builder, Int64Builder, ListBuilder,
    StringBuilder, StructBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use super::export::ExportedRecord;
use crate::logdir::file_name::parse_partition_dir;

/// Rows gathered before they are handed to the writer as one Arrow batch.
const BATCH_ROWS: usize = 8192;
/// Key, value and header bytes gathered before the batch is handed on.
const BATCH_BYTES: usize = 16 << 20;
/// Encoded bytes a row group may hold in memory before it is written.
const ROW_GROUP_BYTES: usize = 128 << 20;

/// The columns of a header: its key as text (as Kafka's clients read it,
/// bytes that are not UTF-8 replaced) and its value's bytes.
fn header_fields() -> Fields {
    Fields::from(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", DataType::Binary, true),
    ])
}

/// The file's schema: one column per record field.
pub fn export_schema() -> SchemaRef {
    let headers = DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(header_fields()),
        false,
    )));
    Arc::new(Schema::new(vec![
        Field::new("topic", DataType::Utf8, true),
        Field::new("partition", DataType::Int32, true),
        Field::new("offset", DataType::Int64, false),
        Field::new("timestamp", DataType::Int64, false),
        Field::new("timestampType", DataType::Utf8, false),
        Field::new("key", DataType::Binary, true),
        Field::new("value", DataType::Binary, true),
        Field::new("headers", headers, false),
        Field::new("producerId", DataType::Int64, false),
        Field::new("producerEpoch", DataType::Int16, false),
        Field::new("sequence", DataType::Int32, false),
        Field::new("partitionLeaderEpoch", DataType::Int32, false),
        Field::new("isTransactional", DataType::Boolean, false),
        Field::new("isControl", DataType::Boolean, false),
        Field::new("controlType", DataType::Utf8, true),
    ]))
}

/// The columns being gathered.
struct Columns {
    topic: StringBuilder,
    partition: Int32Builder,
    offset: Int64Builder,
    timestamp: Int64Builder,
    timestamp_type: StringBuilder,
    key: BinaryBuilder,
    value: BinaryBuilder,
    headers: ListBuilder<StructBuilder>,
    producer_id: Int64Builder,
    producer_epoch: Int16Builder,
    sequence: Int32Builder,
    leader_epoch: Int32Builder,
    transactional: BooleanBuilder,
    control: BooleanBuilder,
    control_type: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl Columns {
    fn new() -> Self {
        let header = StructBuilder::from_fields(header_fields(), 0);
        let item = Field::new("item", DataType::Struct(header_fields()), false);
        Self {
            topic: StringBuilder::new(),
            partition: Int32Builder::new(),
            offset: Int64Builder::new(),
            timestamp: Int64Builder::new(),
            timestamp_type: StringBuilder::new(),
            key: BinaryBuilder::new(),
            value: BinaryBuilder::new(),
            headers: ListBuilder::new(header).with_field(Arc::new(item)),
            producer_id: Int64Builder::new(),
            producer_epoch: Int16Builder::new(),
            sequence: Int32Builder::new(),
            leader_epoch: Int32Builder::new(),
            transactional: BooleanBuilder::new(),
            control: BooleanBuilder::new(),
            control_type: StringBuilder::new(),
            rows: 0,
            bytes: 0,
        }
    }

    fn push(&mut self, topic: Option<&(String, i32)>, r: &ExportedRecord<'_>) {
        let record = r.record;
        self.topic.append_option(topic.map(|t| t.0.as_str()));
        self.partition.append_option(topic.map(|t| t.1));
        self.offset.append_value(record.offset);
        self.timestamp.append_value(record.timestamp);
        self.timestamp_type
            .append_value(r.batch.timestamp_type.name());
        self.key.append_option(record.key);
        self.value.append_option(record.value);
        let header = self.headers.values();
        for h in &record.headers {
            field::<StringBuilder>(header, 0).append_value(String::from_utf8_lossy(h.key));
            field::<BinaryBuilder>(header, 1).append_option(h.value);
            header.append(true);
            self.bytes += h.key.len() + h.value.map_or(0, <[u8]>::len);
        }
        self.headers.append(true);
        self.producer_id.append_value(r.batch.producer_id);
        self.producer_epoch.append_value(r.batch.producer_epoch);
        self.sequence.append_value(r.sequence());
        self.leader_epoch
            .append_value(r.batch.partition_leader_epoch);
        self.transactional.append_value(r.batch.is_transactional);
        self.control.append_value(r.batch.is_control);
        self.control_type
            .append_option(r.control.map(|c| c.control_type.name()));
        self.rows += 1;
        self.bytes += record.key.map_or(0, <[u8]>::len) + record.value.map_or(0, <[u8]>::len);
    }

    /// The gathered rows as one batch; the builders start over.
    fn finish(&mut self, schema: &SchemaRef) -> Result<RecordBatch, ParquetError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.topic.finish()),
            Arc::new(self.partition.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.timestamp.finish()),
            Arc::new(self.timestamp_type.finish()),
            Arc::new(self.key.finish()),
            Arc::new(self.value.finish()),
            Arc::new(self.headers.finish()),
            Arc::new(self.producer_id.finish()),
            Arc::new(self.producer_epoch.finish()),
            Arc::new(self.sequence.finish()),
            Arc::new(self.leader_epoch.finish()),
            Arc::new(self.transactional.finish()),
            Arc::new(self.control.finish()),
            Arc::new(self.control_type.finish()),
        ];
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(schema.clone(), columns).map_err(ParquetError::from)
    }
}

/// A header struct's field builder (the struct's fields are fixed above).
fn field<T: arrow_array::builder::ArrayBuilder>(header: &mut StructBuilder, i: usize) -> &mut T {
    #[allow(clippy::expect_used)]
    header
        .field_builder::<T>(i)
        .expect("the header struct's fields are the ones built here")
}

/// A Parquet file being written, record by record.
pub struct ParquetExport<W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    columns: Columns,
    /// The topic and partition of the partition named last, parsed once.
    partition: Option<(String, Option<(String, i32)>)>,
}

impl<W: Write + Send> ParquetExport<W> {
    /// Starts a file on `out` (zstd-compressed columns).
    pub fn new(out: W) -> Result<Self, ParquetError> {
        let schema = export_schema();
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build();
        Ok(Self {
            writer: ArrowWriter::try_new(out, schema.clone(), Some(props))?,
            schema,
            columns: Columns::new(),
            partition: None,
        })
    }

    /// Adds one record as a row.
    pub fn push(&mut self, r: &ExportedRecord<'_>) -> Result<(), ParquetError> {
        if self
            .partition
            .as_ref()
            .is_none_or(|(name, _)| name != r.partition)
        {
            self.partition = Some((r.partition.to_string(), parse_partition_dir(r.partition)));
        }
        let topic = self.partition.as_ref().and_then(|(_, t)| t.as_ref());
        self.columns.push(topic, r);
        if self.columns.rows >= BATCH_ROWS || self.columns.bytes >= BATCH_BYTES {
            self.write_batch()?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<(), ParquetError> {
        if self.columns.rows == 0 {
            return Ok(());
        }
        let batch = self.columns.finish(&self.schema)?;
        self.writer.write(&batch)?;
        if self.writer.in_progress_size() >= ROW_GROUP_BYTES {
            self.writer.flush()?;
        }
        Ok(())
    }

    /// Writes the rows still gathered and the file's footer.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        self.write_batch()?;
        self.writer.into_inner()
    }
}
