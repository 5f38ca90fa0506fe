#!/usr/bin/env bash
# Writes the lab's own stand-ins for third-party classes Debian does not
# package, under <dir>/generator and <dir>/runtime. They are written here,
# fresh, and contain no Kafka code.
set -euo pipefail
dir="$1"
mkdir -p "$dir/generator/com/fasterxml/jackson/datatype/jdk8" "$dir/runtime"
# jackson-datatype-jdk8: the generator registers the module and only reads
# its schema files, so a module that adds nothing is enough.
cat > "$dir/generator/com/fasterxml/jackson/datatype/jdk8/Jdk8Module.java" <<'JAVA'
package com.fasterxml.jackson.datatype.jdk8;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.Module;

/** Stand-in that registers nothing. */
public class Jdk8Module extends Module {
    @Override public String getModuleName() { return "jdk8-stand-in"; }
    @Override public Version version() { return Version.unknownVersion(); }
    @Override public void setupModule(SetupContext context) { }
}
JAVA

# Yammer metrics 2.x (not in Debian): Kafka's storage classes register
# metrics through it; these stand-ins record nothing.
y="$dir/runtime/com/yammer/metrics"
mkdir -p "$y/core" "$y/reporting"
cat > "$y/core/Metric.java" <<'JAVA'
package com.yammer.metrics.core;
/** Stand-in: a metric. */
public interface Metric { }
JAVA
cat > "$y/core/MetricName.java" <<'JAVA'
package com.yammer.metrics.core;
/** Stand-in: a metric's name. */
public class MetricName implements Comparable<MetricName> {
    private final String group, type, name, scope, mBeanName;
    public MetricName(String group, String type, String name) { this(group, type, name, null, group + ":type=" + type + ",name=" + name); }
    public MetricName(String group, String type, String name, String scope) { this(group, type, name, scope, group + ":type=" + type + ",name=" + name); }
    public MetricName(String group, String type, String name, String scope, String mBeanName) {
        this.group = group; this.type = type; this.name = name; this.scope = scope; this.mBeanName = mBeanName;
    }
    public String getGroup() { return group; }
    public String getType() { return type; }
    public String getName() { return name; }
    public String getScope() { return scope; }
    public boolean hasScope() { return scope != null; }
    public String getMBeanName() { return mBeanName; }
    @Override public int compareTo(MetricName o) { return mBeanName.compareTo(o.mBeanName); }
    @Override public boolean equals(Object o) { return o instanceof MetricName && ((MetricName) o).mBeanName.equals(mBeanName); }
    @Override public int hashCode() { return mBeanName.hashCode(); }
    @Override public String toString() { return mBeanName; }
}
JAVA
cat > "$y/core/Gauge.java" <<'JAVA'
package com.yammer.metrics.core;
/** Stand-in: a gauge. */
public abstract class Gauge<T> implements Metric { public abstract T value(); }
JAVA
cat > "$y/core/Meter.java" <<'JAVA'
package com.yammer.metrics.core;
/** Stand-in: a meter that counts nothing. */
public class Meter implements Metric {
    public void mark() { }
    public void mark(long n) { }
    public long count() { return 0; }
    public double oneMinuteRate() { return 0; }
    public double fiveMinuteRate() { return 0; }
    public double fifteenMinuteRate() { return 0; }
    public double meanRate() { return 0; }
}
JAVA
cat > "$y/core/Histogram.java" <<'JAVA'
package com.yammer.metrics.core;
/** Stand-in: a histogram that keeps nothing. */
public class Histogram implements Metric {
    public void update(int v) { }
    public void update(long v) { }
    public long count() { return 0; }
    public double max() { return 0; }
    public double min() { return 0; }
    public double mean() { return 0; }
}
JAVA
cat > "$y/core/Timer.java" <<'JAVA'
package com.yammer.metrics.core;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
/** Stand-in: a timer that runs what it is given and keeps nothing. */
public class Timer implements Metric {
    public <T> T time(Callable<T> event) throws Exception { return event.call(); }
    public void update(long duration, TimeUnit unit) { }
    public long count() { return 0; }
    public double max() { return 0; }
    public double min() { return 0; }
    public double mean() { return 0; }
}
JAVA
cat > "$y/core/MetricsRegistry.java" <<'JAVA'
package com.yammer.metrics.core;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
/** Stand-in: a registry that hands out metrics and keeps them by name. */
public class MetricsRegistry {
    private final Map<MetricName, Metric> metrics = new ConcurrentHashMap<>();
    @SuppressWarnings("unchecked")
    private <M extends Metric> M add(MetricName n, M m) { Metric old = metrics.putIfAbsent(n, m); return old == null ? m : (M) old; }
    public <T> Gauge<T> newGauge(MetricName n, Gauge<T> g) { return add(n, g); }
    public Meter newMeter(MetricName n, String eventType, TimeUnit unit) { return add(n, new Meter()); }
    public Histogram newHistogram(MetricName n, boolean biased) { return add(n, new Histogram()); }
    public Timer newTimer(MetricName n, TimeUnit durationUnit, TimeUnit rateUnit) { return add(n, new Timer()); }
    public void removeMetric(MetricName n) { metrics.remove(n); }
    public Map<MetricName, Metric> allMetrics() { return new TreeMap<>(metrics); }
    public SortedMap<String, SortedMap<MetricName, Metric>> groupedMetrics() { return new TreeMap<>(); }
    public void addListener(Object listener) { }
    public void shutdown() { }
}
JAVA
cat > "$y/reporting/JmxReporter.java" <<'JAVA'
package com.yammer.metrics.reporting;
import com.yammer.metrics.core.Metric;
import com.yammer.metrics.core.MetricName;
import com.yammer.metrics.core.MetricsRegistry;
/** Stand-in: a reporter that reports nothing. */
public class JmxReporter {
    private final MetricsRegistry registry;
    public JmxReporter(MetricsRegistry registry) { this.registry = registry; }
    protected MetricsRegistry getMetricsRegistry() { return registry; }
    public void onMetricAdded(MetricName name, Metric metric) { }
    public void onMetricRemoved(MetricName name) { }
    public void start() { }
    public void shutdown() { }
}
JAVA

# Kafka's client telemetry utilities need OpenTelemetry (not in Debian);
# requests only call decompress, which the lab never reaches.
t="$dir/runtime/org/apache/kafka/common/telemetry/internals"
mkdir -p "$t"
cat > "$t/ClientTelemetryUtils.java" <<'JAVA'
package org.apache.kafka.common.telemetry.internals;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.CompressionType;
/** Stand-in without OpenTelemetry: telemetry payloads are never decompressed in the lab. */
public final class ClientTelemetryUtils {
    private ClientTelemetryUtils() { }
    public static ByteBuffer decompress(byte[] metrics, CompressionType type) { throw new UnsupportedOperationException("no telemetry in the lab"); }
    public static ByteBuffer decompress(ByteBuffer metrics, CompressionType type) { throw new UnsupportedOperationException("no telemetry in the lab"); }
}
JAVA
