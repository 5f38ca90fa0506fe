import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.ControlRecordUtils;

import java.lang.reflect.Method;

import java.nio.ByteBuffer;

/** Kafka's reading of a KRaft control record's value: its version and generated message, as JSON. */
final class ControlView {
    private ControlView() { }

    /** The generated message class each KRaft control type's value is. */
    static String messageClass(ControlRecordType type) {
        switch (type.name()) {
            case "LEADER_CHANGE": return "LeaderChangeMessage";
            case "SNAPSHOT_HEADER": return "SnapshotHeaderRecord";
            case "SNAPSHOT_FOOTER": return "SnapshotFooterRecord";
            case "KRAFT_VERSION": return "KRaftVersionRecord";
            case "KRAFT_VOTERS": return "VotersRecord";
            default: return null;
        }
    }

    /** The version ControlRecordUtils reads and writes a KRaft control type's message at (<TYPE>_CURRENT_VERSION). */
    static short currentVersion(ControlRecordType type) throws Exception {
        return ControlRecordUtils.class.getField(type.name() + "_CURRENT_VERSION").getShort(null);
    }

    /** The value as ControlRecordUtils.deserialize<Message> reads it; "version" is the message's own Version field. */
    static JsonNode value(ControlRecordType type, ByteBuffer value) throws Exception {
        if (value == null) return null;
        String cls = messageClass(type);
        if (cls == null) throw new IllegalStateException("control type " + type + " is not a KRaft record");
        Method read = ControlRecordUtils.class.getMethod("deserialize" + cls, ByteBuffer.class);
        ApiMessage m = (ApiMessage) read.invoke(null, value.duplicate());
        JsonNode data = KsegLab.converterJson(m, currentVersion(type));
        ObjectNode v = KsegLab.JSON.createObjectNode();
        v.put("base64", KsegLab.base64(value));
        v.set("version", data.get("version"));
        v.set("data", data);
        return v;
    }
}
