import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.FileLogInputStream;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

import java.io.File;
import java.nio.ByteBuffer;

/**
 * Kafka's own reading of a log or snapshot file: FileRecords.batches, each
 * batch's header accessors, and its records, whose keys and values a
 * decoder turns into Kafka's JSON.
 */
final class LogView {
    /** Decodes a data record's key and value as Kafka's tools do. */
    interface Decoder {
        /** Kafka's JSON for the key (with "base64" beside it) or null. */
        JsonNode key(ByteBuffer key, ByteBuffer value) throws Exception;
        /** Kafka's JSON for the value (with "base64" beside it) or null. */
        JsonNode value(ByteBuffer key, ByteBuffer value) throws Exception;
    }

    private LogView() { }

    /** The `log` object of a segment (or the `records` object of a snapshot). */
    static ObjectNode read(File file, Decoder decoder) throws Exception {
        ObjectNode log = KsegLab.JSON.createObjectNode();
        log.put("file", file.getName());
        log.put("fileSize", file.length());
        ArrayNode batches = log.putArray("batches");
        long covered = 0;
        try (FileRecords records = FileRecords.open(file, false)) {
            for (RecordBatch batch : records.batches()) {
                batches.add(batch(batch, decoder));
                covered += batch.sizeInBytes();
            }
        }
        log.put("batchCount", batches.size());
        log.put("bytesCoveredByBatches", covered);
        return log;
    }

    private static ObjectNode batch(RecordBatch batch, Decoder decoder) throws Exception {
        ObjectNode b = KsegLab.JSON.createObjectNode();
        b.put("baseOffset", batch.baseOffset());
        b.put("lastOffset", batch.lastOffset());
        b.put("count", batch.countOrNull());
        if (batch instanceof FileLogInputStream.FileChannelRecordBatch) {
            b.put("position", ((FileLogInputStream.FileChannelRecordBatch) batch).position());
        }
        b.put("sizeInBytes", batch.sizeInBytes());
        b.put("magic", batch.magic());
        b.put("crc", batch.checksum());
        b.put("isValid", batch.isValid());
        b.put("compressionType", batch.compressionType().name);
        b.put("timestampType", batch.timestampType().toString());
        b.put("maxTimestamp", batch.maxTimestamp());
        b.put("producerId", batch.producerId());
        b.put("producerEpoch", batch.producerEpoch());
        b.put("baseSequence", batch.baseSequence());
        b.put("lastSequence", batch.lastSequence());
        b.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
        b.put("isTransactional", batch.isTransactional());
        b.put("isControl", batch.isControlBatch());
        ArrayNode records = b.putArray("records");
        for (Record r : batch) {
            ObjectNode o = records.addObject();
            o.put("offset", r.offset());
            o.put("timestamp", r.timestamp());
            o.put("sizeInBytes", r.sizeInBytes());
            o.put("keySize", r.keySize());
            o.put("valueSize", r.valueSize());
            ByteBuffer key = r.hasKey() ? r.key() : null;
            ByteBuffer value = r.hasValue() ? r.value() : null;
            if (batch.isControlBatch()) {
                ControlRecordType type = ControlRecordType.parse(key.duplicate());
                o.set("key", controlKey(key, type));
                o.set("value", ControlView.value(type, value));
                o.put("controlType", type.name());
            } else {
                o.set("key", decoder.key(key, value));
                o.set("value", decoder.value(key, value));
            }
            ArrayNode headers = o.putArray("headers");
            for (Header h : r.headers()) {
                ObjectNode hn = headers.addObject();
                hn.put("key", h.key());
                hn.put("value", h.value() == null ? null : java.util.Base64.getEncoder().encodeToString(h.value()));
            }
        }
        return b;
    }

    private static ObjectNode controlKey(ByteBuffer key, ControlRecordType type) {
        ObjectNode k = KsegLab.JSON.createObjectNode();
        k.put("base64", KsegLab.base64(key));
        k.put("version", key.getShort(key.position()));
        k.put("type", type.type());
        k.put("controlType", type.name());
        return k;
    }
}
