import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The lab's groups case (every release): a `__consumer_offsets-0` partition
 * telling one coherent story of classic groups (members with the consumer
 * protocol's subscriptions and assignments, a member leaving, a group
 * emptied and deleted, a group that only commits offsets), a consumer group
 * (KIP-848: members joining, target and current assignments, members still
 * revoking and waiting for partitions, a member leaving), a share group
 * (4.0 on: members, assignments, share-partition initialisation, a member
 * leaving) and a streams group (4.1 on: topology, members, assignments,
 * standby and warm-up tasks, a member leaving), with offset commits. Each
 * record's story fields are set on a seeded random template (the rest stay
 * random), the message built by the release's generated JSON converter,
 * serialized by the release's own serde; read back as CoordinatorCase does.
 */
public final class GroupsCase {
    private static final String PKG = "org.apache.kafka.coordinator.group.generated";
    private static final String TOPIC_ID = "Q2xpY2tzQUFBQUFBQUFBQQ";
    private static final String CARTS_ID = "Q2FydHNBQUFBQUFBQUFBQQ";
    private static final String CLIENT_PKG = "org.apache.kafka.common.message";

    private final KsegLab lab;
    private final Map<String, JsonNode> schemas;
    private final Map<String, JsonNode> clientSchemas;
    private final Object serde;
    private final Method serializeKey;
    private final Method serializeValue;
    private final Class<?> recordClass;
    private final List<MemoryRecords> batches = new ArrayList<>();
    private final List<String> told = new ArrayList<>();
    private long offset = 0;
    private long clock = KsegLab.BASE_TIME + 7_200_000L;
    private long seed = 901;

    private GroupsCase(KsegLab lab) throws Exception {
        this.lab = lab;
        this.schemas = Schemas.load(lab.schemaDir("group-coordinator", "common/message"));
        this.clientSchemas = Schemas.load(lab.schemaDir("clients", "common/message"));
        Object found = null;
        for (String name : KsegLab.GROUP_SERDES) {
            try {
                found = Class.forName(name).getConstructor().newInstance();
                break;
            } catch (ClassNotFoundException e) {
                // an older or newer release names it otherwise
            }
        }
        this.serde = found;
        Method k = null, v = null;
        for (Method m : serde.getClass().getMethods()) {
            if (m.isBridge()) continue;
            if (m.getName().equals("serializeKey") && m.getParameterCount() == 1) k = m;
            if (m.getName().equals("serializeValue") && m.getParameterCount() == 1) v = m;
        }
        this.serializeKey = k;
        this.serializeValue = v;
        this.recordClass = k.getParameterTypes()[0];
    }

    /** Entry point of the harness: every release; share groups where it has them (4.0 on), streams groups too (4.1 on). */
    public static void write(KsegLab lab) throws Exception {
        new GroupsCase(lab).run();
    }

    /** This case alone, into a scratch dir built before: GroupsCase <src> <out>/<release> <release> <commit>. */
    public static void main(String[] args) throws Exception {
        write(new KsegLab(new File(args[0]), new File(args[1]), args[2], args[3]));
    }

    private static ObjectNode obj() {
        return KsegLab.JSON.createObjectNode();
    }

    /** A list of {subtopologyId, partitions} (streams tasks) or {topicId, partitions} (share partitions). */
    private static ArrayNode ids(String idField, String id, int... partitions) {
        ArrayNode a = KsegLab.JSON.createArrayNode();
        if (partitions.length == 0) return a;
        ObjectNode o = a.addObject();
        o.put(idField, id);
        ArrayNode p = o.putArray("partitions");
        for (int x : partitions) p.add(x);
        return a;
    }

    private static ArrayNode tasks(int... partitions) {
        return ids("subtopologyId", "0", partitions);
    }

    /** Tasks of subtopologies 0 and 1 (either list may be empty). */
    private static ArrayNode tasks(int[] of0, int[] of1) {
        ArrayNode a = tasks(of0);
        a.addAll(ids("subtopologyId", "1", of1));
        return a;
    }

    private static int[] p(int... partitions) {
        return partitions;
    }

    private static ArrayNode shared(int... partitions) {
        return ids("topicId", TOPIC_ID, partitions);
    }

    private static ApiMessage fromJson(String pkg, String name, JsonNode json, int version) throws Exception {
        Class<?> c = Class.forName(pkg + "." + name + "JsonConverter");
        return (ApiMessage) c.getMethod("read", JsonNode.class, short.class).invoke(null, json, (short) version);
    }

    private ApiMessage fromJson(String name, JsonNode json, int version) throws Exception {
        return fromJson(PKG, name, json, version);
    }

    /** A message: a seeded random template of the release's schema, the story's fields set over it. */
    private ApiMessage message(String pkg, Map<String, JsonNode> from, String name, int version, ObjectNode set) throws Exception {
        ApiMessage template = KsegLab.newMessage(pkg, name);
        new Filler(seed++, 0).fill(template, from.get(name), version);
        ObjectNode json = (ObjectNode) KsegLab.converterJson(template, version);
        set.fields().forEachRemaining(e -> json.set(e.getKey(), e.getValue()));
        return fromJson(pkg, name, json, version);
    }

    private ApiMessage value(String name, int version, ObjectNode set) throws Exception {
        return message(PKG, schemas, name, version, set);
    }

    /** One record (a tombstone when `set` is null), one record a batch as the coordinator appends a write. */
    private void record(String family, ObjectNode key, ObjectNode set, int version, String what) throws Exception {
        clock += 1000;
        JsonNode keySchema = schemas.get(family + "Key");
        ApiMessageAndVersion v0 = set == null ? null : KsegLab.mav(value(family + "Value", version, set), version);
        Object rec;
        if (keySchema.has("apiKey")) {
            // 4.1 on: the key names its record type in apiKey and is read at version 0.
            ApiMessage k = fromJson(family + "Key", key, 0);
            rec = set == null ? KsegLab.staticMethod(recordClass, "tombstone", 1).invoke(null, k)
                : KsegLab.staticMethod(recordClass, "record", 2).invoke(null, k, v0);
        } else {
            // 4.0: the key's version is its record type.
            int type = Schemas.versions(keySchema).get(0);
            rec = KsegLab.anyConstructor(recordClass, 2).newInstance(KsegLab.mav(fromJson(family + "Key", key, type), type), v0);
        }
        byte[] v = set == null ? null : (byte[]) serializeValue.invoke(serde, rec);
        List<SimpleRecord> one = new ArrayList<>();
        one.add(new SimpleRecord(clock, (byte[]) serializeKey.invoke(serde, rec), v));
        batches.add(KsegLab.batch(offset++, one));
        told.add(family + (set == null ? " tombstone" : " v" + version) + ": " + what);
    }

    private static ObjectNode group(String id) {
        ObjectNode k = obj();
        k.put("groupId", id);
        return k;
    }

    private static ObjectNode member(String id, String member) {
        ObjectNode k = group(id);
        k.put("memberId", member);
        return k;
    }

    private boolean has(String schema, String field) {
        for (JsonNode f : schemas.get(schema).get("fields")) if (f.get("name").asText().equals(field)) return true;
        return false;
    }

    private void streams() throws Exception {
        String g = "orders-app";
        ObjectNode topology = (ObjectNode) KsegLab.converterJson(templateOf("StreamsGroupTopologyValue"), 0);
        ObjectNode sub = (ObjectNode) topology.get("subtopologies").get(0);
        sub.put("subtopologyId", "0");
        sub.putArray("sourceTopics").add("orders");
        ObjectNode t = obj();
        t.put("epoch", 1);
        t.putArray("subtopologies").add(sub);
        record("StreamsGroupTopology", group(g), t, 0, g + " topology epoch 1, subtopology 0 reading orders");
        record("StreamsGroupMetadata", group(g), groupEpoch(1, 1), 0, g + " group epoch 1"
            + (has("StreamsGroupMetadataValue", "ValidatedTopologyEpoch") ? ", validated topology epoch 1" : ""));
        for (String m : new String[] {"m1", "m2"}) {
            ObjectNode md = obj();
            md.put("topologyEpoch", 1);
            record("StreamsGroupMemberMetadata", member(g, m), md, 0, g + " member " + m + " joins");
        }
        record("StreamsGroupTargetAssignmentMember", member(g, "m1"), streamsTarget(0, 1), 0, g + " m1 target: tasks 0_0 0_1");
        record("StreamsGroupTargetAssignmentMember", member(g, "m2"), streamsTarget(2), 0, g + " m2 target: task 0_2");
        record("StreamsGroupTargetAssignmentMetadata", group(g), assignmentEpoch(1), 0, g + " target assignment epoch 1");
        record("StreamsGroupCurrentMemberAssignment", member(g, "m1"), streamsCurrent(1, 0, 1, tasks(0, 1)), 0, g + " m1 epoch 1 STABLE");
        record("StreamsGroupCurrentMemberAssignment", member(g, "m2"), streamsCurrent(1, 0, 1, tasks(2)), 0, g + " m2 epoch 1 STABLE");
        commit(g, "orders", 0, 100);
        commit(g, "orders", 1, 40);
        ObjectNode md = obj();
        md.put("topologyEpoch", 1);
        record("StreamsGroupMemberMetadata", member(g, "m3"), md, 0, g + " member m3 joins");
        record("StreamsGroupMetadata", group(g), groupEpoch(2, 1), 0, g + " group epoch 2");
        record("StreamsGroupTargetAssignmentMember", member(g, "m1"), streamsTarget(0), 0, g + " m1 target: task 0_0");
        record("StreamsGroupTargetAssignmentMember", member(g, "m3"), streamsTarget(1), 0, g + " m3 target: task 0_1");
        record("StreamsGroupTargetAssignmentMetadata", group(g), assignmentEpoch(2), 0, g + " target assignment epoch 2");
        record("StreamsGroupCurrentMemberAssignment", member(g, "m1"), streamsCurrent(2, 1, 1, tasks(0)), 0, g + " m1 epoch 2 STABLE");
        record("StreamsGroupCurrentMemberAssignment", member(g, "m3"), streamsCurrent(2, 0, 3, tasks()), 0,
            g + " m3 epoch 2 UNRELEASED_TASKS (0_1 not yet released)");
        commit(g, "orders", 0, 150);
        // m2 leaves: its current assignment, target assignment and member tombstones.
        record("StreamsGroupCurrentMemberAssignment", member(g, "m2"), null, 0, g + " m2 leaves");
        record("StreamsGroupTargetAssignmentMember", member(g, "m2"), null, 0, g + " m2's target removed");
        record("StreamsGroupMemberMetadata", member(g, "m2"), null, 0, g + " m2 removed");
        // The topology grows a subtopology reading returns; standby and warm-up tasks are assigned.
        ObjectNode sub1 = sub.deepCopy();
        sub1.put("subtopologyId", "1");
        sub1.putArray("sourceTopics").add("returns");
        ObjectNode t2 = obj();
        t2.put("epoch", 2);
        t2.putArray("subtopologies").add(sub.deepCopy()).add(sub1);
        record("StreamsGroupTopology", group(g), t2, 0, g + " topology epoch 2, subtopology 1 reading returns added");
        record("StreamsGroupMetadata", group(g), groupEpoch(3, 2), 0, g + " group epoch 3"
            + (has("StreamsGroupMetadataValue", "ValidatedTopologyEpoch") ? ", validated topology epoch 2" : ""));
        for (String m : new String[] {"m1", "m3"}) {
            ObjectNode md2 = obj();
            md2.put("topologyEpoch", 2);
            record("StreamsGroupMemberMetadata", member(g, m), md2, 0, g + " member " + m + " on topology epoch 2");
        }
        record("StreamsGroupTargetAssignmentMember", member(g, "m1"),
            streamsTarget(tasks(p(0), p(0)), tasks(p(1), p()), tasks(p(), p(1))), 0,
            g + " m1 target: active 0_0 1_0, standby 0_1, warm-up 1_1");
        record("StreamsGroupTargetAssignmentMember", member(g, "m3"),
            streamsTarget(tasks(p(1), p(1)), tasks(p(0), p()), tasks()), 0, g + " m3 target: active 0_1 1_1, standby 0_0");
        record("StreamsGroupTargetAssignmentMetadata", group(g), assignmentEpoch(3), 0, g + " target assignment epoch 3");
        record("StreamsGroupCurrentMemberAssignment", member(g, "m1"),
            streamsCurrent(3, 2, 1, tasks(p(0), p(0)), tasks(p(1), p()), tasks(p(), p(1))), 0,
            g + " m1 epoch 3 STABLE: active 0_0 1_0, standby 0_1, warm-up 1_1 (m3 stays at epoch 2)");
        commit(g, "returns", 0, 7);
    }

    private ApiMessage templateOf(String name) throws Exception {
        ApiMessage m = KsegLab.newMessage(PKG, name);
        new Filler(seed++, 0).fill(m, schemas.get(name), 0);
        return m;
    }

    private ObjectNode groupEpoch(int epoch, int validatedTopologyEpoch) {
        ObjectNode o = obj();
        o.put("epoch", epoch);
        if (has("StreamsGroupMetadataValue", "ValidatedTopologyEpoch")) o.put("validatedTopologyEpoch", validatedTopologyEpoch);
        return o;
    }

    private static ObjectNode assignmentEpoch(int epoch) {
        ObjectNode o = obj();
        o.put("assignmentEpoch", epoch);
        return o;
    }

    private static ObjectNode streamsTarget(int... active) {
        return streamsTarget(tasks(active), tasks(), tasks());
    }

    private static ObjectNode streamsTarget(ArrayNode active, ArrayNode standby, ArrayNode warmup) {
        ObjectNode o = obj();
        o.set("activeTasks", active);
        o.set("standbyTasks", standby);
        o.set("warmupTasks", warmup);
        return o;
    }

    /** A current assignment's start: the member epoch and the one before. */
    private static ObjectNode memberEpochs(int epoch, int previous) {
        ObjectNode o = obj();
        o.put("memberEpoch", epoch);
        o.put("previousMemberEpoch", previous);
        return o;
    }

    private static ObjectNode streamsCurrent(int epoch, int previous, int state, ArrayNode active) {
        return streamsCurrent(epoch, previous, state, active, tasks(), tasks());
    }

    private static ObjectNode streamsCurrent(int epoch, int previous, int state, ArrayNode active, ArrayNode standby,
                                             ArrayNode warmup) {
        ObjectNode o = memberEpochs(epoch, previous);
        o.put("state", state);
        o.set("activeTasks", active);
        o.set("standbyTasks", standby);
        o.set("warmupTasks", warmup);
        for (String f : new String[] {"activeTasksPendingRevocation", "standbyTasksPendingRevocation", "warmupTasksPendingRevocation"}) {
            o.set(f, tasks());
        }
        return o;
    }

    /** An offset commit (OffsetCommitValue v3, as the coordinator writes one without an expire timestamp). */
    private void commit(String group, String topic, int partition, long at) throws Exception {
        ObjectNode k = obj();
        k.put("group", group);
        k.put("topic", topic);
        k.put("partition", partition);
        ObjectNode v = obj();
        v.put("offset", at);
        v.put("leaderEpoch", 3);
        v.put("metadata", "");
        v.put("commitTimestamp", clock + 1000);
        record("OffsetCommit", k, v, 3, group + " commits " + topic + "-" + partition + " at " + at);
    }

    /** The consumer protocol's bytes (2-byte version prefix) of a subscription or assignment. */
    private String consumerBytes(String name, int version, ObjectNode set) throws Exception {
        ApiMessage m = message(CLIENT_PKG, clientSchemas, name, version, set);
        ByteBuffer b = MessageUtil.toVersionPrefixedByteBuffer((short) version, m);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return Base64.getEncoder().encodeToString(out);
    }

    /** A classic member of protocol type consumer subscribed to `topic`, assigned `partitions` of it. */
    private ObjectNode classicMember(String id, String topic, int... partitions) throws Exception {
        ObjectNode sub = obj();
        sub.putArray("topics").add(topic);
        sub.putNull("userData");
        sub.putArray("ownedPartitions");
        sub.put("generationId", -1);
        sub.putNull("rackId");
        ObjectNode assign = obj();
        ObjectNode owned = assign.putArray("assignedPartitions").addObject();
        owned.put("topic", topic);
        ArrayNode p = owned.putArray("partitions");
        for (int x : partitions) p.add(x);
        assign.putNull("userData");
        ObjectNode m = obj();
        m.put("memberId", id);
        m.putNull("groupInstanceId");
        m.put("clientId", id.substring(0, id.indexOf('-')));
        m.put("clientHost", "/10.0.0." + (id.charAt(1) - '0'));
        m.put("rebalanceTimeout", 300000);
        m.put("sessionTimeout", 45000);
        m.put("subscription", consumerBytes("ConsumerProtocolSubscription", 3, sub));
        m.put("assignment", consumerBytes("ConsumerProtocolAssignment", 3, assign));
        return m;
    }

    /** GroupMetadataValue v3 (what every release since 2.3 writes): protocol type consumer, range, these members. */
    private void classicGroup(String g, int generation, String leader, String what, ObjectNode... members) throws Exception {
        ObjectNode k = obj();
        k.put("group", g);
        ObjectNode v = obj();
        v.put("protocolType", "consumer");
        v.put("generation", generation);
        if (members.length == 0) {
            v.putNull("protocol");
            v.putNull("leader");
        } else {
            v.put("protocol", "range");
            v.put("leader", leader);
        }
        v.put("currentStateTimestamp", clock + 1000);
        ArrayNode list = v.putArray("members");
        for (ObjectNode m : members) list.add(m);
        record("GroupMetadata", k, v, 3, g + " " + what);
    }

    private void offsetTombstone(String group, String topic, int partition) throws Exception {
        ObjectNode k = obj();
        k.put("group", group);
        k.put("topic", topic);
        k.put("partition", partition);
        record("OffsetCommit", k, null, 0, group + " " + topic + "-" + partition + " offset deleted");
    }

    private void classic() throws Exception {
        String g = "billing";
        String c1 = "c1-7f3a", c2 = "c2-91bd";
        classicGroup(g, 1, c1, "generation 1 Stable: c1 invoices-0 invoices-1, c2 invoices-2",
            classicMember(c1, "invoices", 0, 1), classicMember(c2, "invoices", 2));
        commit(g, "invoices", 0, 500);
        commit(g, "invoices", 2, 320);
        classicGroup(g, 2, c1, "generation 2 Stable: c2 left, c1 invoices-0..2", classicMember(c1, "invoices", 0, 1, 2));
        commit(g, "invoices", 2, 360);
        String r = "nightly-report";
        classicGroup(r, 1, "r1-0c44", "generation 1 Stable: r1 reports-0", classicMember("r1-0c44", "reports", 0));
        commit(r, "reports", 0, 12);
        classicGroup(r, 2, null, "generation 2 Empty: r1 left");
        offsetTombstone(r, "reports", 0);
        ObjectNode k = obj();
        k.put("group", r);
        record("GroupMetadata", k, null, 0, r + " deleted (its offsets expired)");
        commit("ops-tool", "audit", 1, 5);
    }

    private static ArrayNode carts(int... partitions) {
        return ids("topicId", CARTS_ID, partitions);
    }

    /** A consumer group member's current assignment, in the release's layout: 3.8 on a state id, before the target member epoch and pending assignment. */
    private ObjectNode consumerCurrent(int epoch, int previous, int target, int state, ArrayNode assigned, ArrayNode revoking,
                                       ArrayNode pendingAssignment) {
        ObjectNode o = memberEpochs(epoch, previous);
        o.set("assignedPartitions", assigned);
        o.set("partitionsPendingRevocation", revoking);
        if (has("ConsumerGroupCurrentMemberAssignmentValue", "State")) {
            o.put("state", state);
        } else {
            o.put("targetMemberEpoch", target);
            o.set("partitionsPendingAssignment", pendingAssignment);
            o.put("error", 0);
            o.put("metadataVersion", 0);
            o.put("metadataBytes", "");
        }
        return o;
    }

    private ObjectNode consumerTarget(int... partitions) {
        ObjectNode o = obj();
        o.set("topicPartitions", carts(partitions));
        if (has("ConsumerGroupTargetAssignmentMemberValue", "Error")) {
            o.put("error", 0);
            o.put("metadataVersion", 0);
            o.put("metadataBytes", "");
        }
        return o;
    }

    private ObjectNode consumerMember(String client) {
        ObjectNode md = obj();
        md.putNull("instanceId");
        md.putNull("rackId");
        md.put("clientId", client);
        md.put("clientHost", "/10.0.1.7");
        md.putArray("subscribedTopicNames").add("carts");
        md.putNull("subscribedTopicRegex");
        md.put("rebalanceTimeoutMs", 300000);
        md.put("serverAssignor", "uniform");
        if (has("ConsumerGroupMemberMetadataValue", "Assignors")) md.putArray("assignors");
        if (has("ConsumerGroupMemberMetadataValue", "ClassicMemberMetadata")) md.putNull("classicMemberMetadata");
        return md;
    }

    /** A group's subscription metadata (Consumer/ShareGroupPartitionMetadataValue): one topic, no rack metadata. */
    private static ObjectNode subscribed(String topicId, String name, int partitions) {
        ObjectNode md = obj();
        ObjectNode topic = md.putArray("topics").addObject();
        topic.put("topicId", topicId);
        topic.put("topicName", name);
        topic.put("numPartitions", partitions);
        topic.putArray("partitionMetadata");
        return md;
    }

    private void consumer() throws Exception {
        String g = "checkout";
        ObjectNode e = obj();
        e.put("epoch", 1);
        record("ConsumerGroupMetadata", group(g), e, 0, g + " group epoch 1");
        // The subscribed topics' metadata: written until 4.1, which keeps a metadata hash in the group's metadata instead.
        if (!has("ConsumerGroupMetadataValue", "MetadataHash")) {
            ObjectNode md = subscribed(CARTS_ID, "carts", 3);
            if (has("ConsumerGroupPartitionMetadataValue", "Epoch")) md.put("epoch", 1);
            record("ConsumerGroupPartitionMetadata", group(g), md, 0, g + " subscription metadata: carts, 3 partitions");
        }
        for (String m : new String[] {"k1", "k2"}) {
            record("ConsumerGroupMemberMetadata", member(g, m), consumerMember("checkout-" + m), 0, g + " member " + m + " joins");
        }
        record("ConsumerGroupTargetAssignmentMember", member(g, "k1"), consumerTarget(0, 1), 0, g + " k1 target: carts-0 carts-1");
        record("ConsumerGroupTargetAssignmentMember", member(g, "k2"), consumerTarget(2), 0, g + " k2 target: carts-2");
        record("ConsumerGroupTargetAssignmentMetadata", group(g), assignmentEpoch(1), 0, g + " target assignment epoch 1");
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k1"), consumerCurrent(1, 0, 1, 0, carts(0, 1), carts(), carts()), 0,
            g + " k1 epoch 1 STABLE: carts-0 carts-1");
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k2"), consumerCurrent(1, 0, 1, 0, carts(2), carts(), carts()), 0,
            g + " k2 epoch 1 STABLE: carts-2");
        commit(g, "carts", 0, 900);
        commit(g, "carts", 2, 450);
        record("ConsumerGroupMemberMetadata", member(g, "k3"), consumerMember("checkout-k3"), 0, g + " member k3 joins");
        ObjectNode e2 = obj();
        e2.put("epoch", 2);
        record("ConsumerGroupMetadata", group(g), e2, 0, g + " group epoch 2");
        record("ConsumerGroupTargetAssignmentMember", member(g, "k1"), consumerTarget(0), 0, g + " k1 target: carts-0");
        record("ConsumerGroupTargetAssignmentMember", member(g, "k3"), consumerTarget(1), 0, g + " k3 target: carts-1");
        record("ConsumerGroupTargetAssignmentMetadata", group(g), assignmentEpoch(2), 0, g + " target assignment epoch 2");
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k2"), consumerCurrent(2, 1, 2, 0, carts(2), carts(), carts()), 0,
            g + " k2 epoch 2 STABLE: carts-2");
        // k1 has not revoked carts-1 yet (UNREVOKED_PARTITIONS; before 3.8 REVOKING at target epoch 2); k3 waits for it
        // (UNRELEASED_PARTITIONS; before 3.8 ASSIGNING with carts-1 pending).
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k1"), consumerCurrent(1, 0, 2, 1, carts(0), carts(1), carts()), 0,
            g + " k1 epoch 1 revoking carts-1");
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k3"), consumerCurrent(2, 0, 2, 2, carts(), carts(), carts(1)), 0,
            g + " k3 epoch 2 waiting for carts-1");
        commit(g, "carts", 1, 610);
        record("ConsumerGroupCurrentMemberAssignment", member(g, "k2"), null, 0, g + " k2 leaves");
        record("ConsumerGroupTargetAssignmentMember", member(g, "k2"), null, 0, g + " k2's target removed");
        record("ConsumerGroupMemberMetadata", member(g, "k2"), null, 0, g + " k2 removed");
    }

    private void share() throws Exception {
        String g = "audit-share";
        ObjectNode e = obj();
        e.put("epoch", 1);
        record("ShareGroupMetadata", group(g), e, 0, g + " group epoch 1");
        // 4.0 keeps the subscribed topics' metadata (type 9, which 4.1 dropped); 4.1 on, the initialized
        // share-partitions (type 15, which 4.0 reads but neither writes nor replays).
        boolean subscriptionMetadata = schemas.containsKey("ShareGroupPartitionMetadataValue");
        if (subscriptionMetadata) {
            record("ShareGroupPartitionMetadata", group(g), subscribed(TOPIC_ID, "audit", 3), 0, g + " subscription metadata: audit, 3 partitions");
        }
        for (String m : new String[] {"s1", "s2"}) {
            ObjectNode md = obj();
            if (has("ShareGroupMemberMetadataValue", "SubscribedTopicNames")) md.putArray("subscribedTopicNames").add("audit");
            record("ShareGroupMemberMetadata", member(g, m), md, 0, g + " member " + m + " joins");
        }
        record("ShareGroupTargetAssignmentMember", member(g, "s1"), shareTarget(0, 1), 0, g + " s1 target: audit-0 audit-1");
        record("ShareGroupTargetAssignmentMember", member(g, "s2"), shareTarget(2), 0, g + " s2 target: audit-2");
        record("ShareGroupTargetAssignmentMetadata", group(g), assignmentEpoch(1), 0, g + " target assignment epoch 1");
        record("ShareGroupCurrentMemberAssignment", member(g, "s1"), shareCurrent(1, 0, 1), 0, g + " s1 epoch 1 STABLE");
        record("ShareGroupCurrentMemberAssignment", member(g, "s2"), shareCurrent(1, 2), 0, g + " s2 epoch 1 STABLE");
        if (!subscriptionMetadata) initialized(g);
        record("ShareGroupCurrentMemberAssignment", member(g, "s2"), null, 0, g + " s2 leaves");
        record("ShareGroupTargetAssignmentMember", member(g, "s2"), null, 0, g + " s2's target removed");
        record("ShareGroupMemberMetadata", member(g, "s2"), null, 0, g + " s2 removed");
    }

    private void initialized(String g) throws Exception {
        ObjectNode init = obj();
        ArrayNode done = init.putArray("initializedTopics");
        ObjectNode topic = done.addObject();
        topic.put("topicId", TOPIC_ID);
        topic.put("topicName", "audit");
        topic.putArray("partitions").add(0).add(1).add(2);
        init.putArray("initializingTopics");
        init.putArray("deletingTopics");
        record("ShareGroupStatePartitionMetadata", group(g), init, 0, g + " share-partitions audit-0..2 initialized");
    }

    private static ObjectNode shareTarget(int... partitions) {
        ObjectNode o = obj();
        o.set("topicPartitions", shared(partitions));
        return o;
    }

    private static ObjectNode shareCurrent(int epoch, int... partitions) {
        ObjectNode o = memberEpochs(epoch, epoch - 1);
        o.put("state", 0);
        o.set("assignedPartitions", shared(partitions));
        return o;
    }

    private void run() throws Exception {
        classic();
        consumer();
        if (schemas.containsKey("StreamsGroupMetadataKey")) streams();
        if (schemas.containsKey("ShareGroupCurrentMemberAssignmentKey")) share();
        File caseDir = new File(lab.out, "internal-consumer-offsets-groups");
        File partDir = new File(caseDir, "__consumer_offsets-0");
        File log = new File(partDir, String.format("%020d.log", 0));
        Files.deleteIfExists(log.toPath());
        KsegLab.writeLog(log, batches);
        ObjectNode view = lab.header("internal-consumer-offsets-groups", "__consumer_offsets");
        view.put("decoding", "as internal-consumer-offsets: key {type (string), data: <Key>JsonConverter.write}, value "
            + "{version (string), data: <Value>JsonConverter.write} from " + serde.getClass().getSimpleName() + "'s deserialize; "
            + "tombstone value = null");
        view.set("recordsWritten", KsegLab.array(told));
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", partDir.getName());
        ObjectNode seg = partition.putArray("segments").addObject();
        seg.put("baseOffset", 0);
        CoordinatorCase offsets = new CoordinatorCase(lab, "consumer-offsets", "__consumer_offsets", "group-coordinator", PKG,
            KsegLab.GROUP_SERDES);
        seg.set("log", LogView.read(log, offsets.reader()));
        view.put("logEndOffset", offset);
        StringBuilder b = new StringBuilder();
        b.append("internal-consumer-offsets-groups (release ").append(lab.release).append(", commit ").append(lab.commit).append(")\n\n");
        b.append("__consumer_offsets-0 written by the lab harness (lab/ in kseg) with this release's own classes: one coherent\n");
        b.append("story of classic groups (billing: consumer-protocol members c1 c2, c2 leaving; nightly-report emptied, its\n");
        b.append("offset and the group deleted; ops-tool committing offsets alone), a consumer group (checkout, KIP-848:\n");
        b.append("members k1 k2 then k3 joining, target and current assignments, k1 still revoking a partition that k3 waits\n");
        b.append("for, k2 leaving; its subscription metadata before 4.1), a share group where the release has them (4.0 on;\n");
        b.append("audit-share: members s1 s2, assignments, subscription metadata (4.0) or share-partitions initialized (4.1\n");
        b.append("on), s2 leaving) and a streams group where the release has them (4.1 on; orders-app: topology, members m1\n");
        b.append("m2 then m3 joining, target and current assignments, m3 still releasing a task, m2 leaving, the topology\n");
        b.append("growing a second subtopology, standby and warm-up tasks), with offset commits. Each record's story\n");
        b.append("fields are set over a seeded random template of the release's schema (the other fields stay random), the\n");
        b.append("message built by the generated JSON converter and serialized by ").append(serde.getClass().getSimpleName()).append(",\n");
        b.append("one record a batch (MemoryRecords.withRecords), appended by FileRecords.\n\n");
        b.append("kafka-view.json: Kafka's reading (FileRecords.batches, the serde's deserialize, the generated JSON converters).\n\n");
        b.append("Records in log order:\n");
        for (int i = 0; i < told.size(); i++) b.append("  ").append(i).append(": ").append(told.get(i)).append('\n');
        lab.finish(caseDir, view, b.toString());
    }
}
