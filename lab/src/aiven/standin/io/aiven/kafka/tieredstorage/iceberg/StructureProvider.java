package io.aiven.kafka.tieredstorage.iceberg;

import org.apache.kafka.common.Configurable;

/** The lab's stand-in: the Iceberg format's schema source, never configured by the lab. */
public interface StructureProvider extends Configurable {
}
