package io.aiven.kafka.tieredstorage;

import java.io.InputStream;
import java.util.Optional;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

import io.aiven.kafka.tieredstorage.config.RemoteStorageManagerConfig;
import io.aiven.kafka.tieredstorage.storage.BytesRange;

import org.slf4j.Logger;

/**
 * The lab's stand-in for the Iceberg segment format (which needs Iceberg,
 * Hadoop, Parquet and Avro, none in Debian). The remote storage manager
 * builds one only for segment.format=iceberg, which the lab never sets;
 * every method refuses.
 */
public class IcebergRemoteStorageManager extends InternalRemoteStorageManager {
    IcebergRemoteStorageManager(final Logger log, final Time time, final RemoteStorageManagerConfig config) {
        super(log, time, config);
        throw new UnsupportedOperationException("the lab has no Iceberg segment format");
    }

    @Override
    Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
        final RemoteLogSegmentMetadata metadata, final LogSegmentData data, final UploadMetricReporter reporter) {
        throw new UnsupportedOperationException();
    }

    @Override
    InputStream fetchLogSegment(final RemoteLogSegmentMetadata metadata, final BytesRange range) {
        throw new UnsupportedOperationException();
    }

    @Override
    InputStream fetchIndex(final RemoteLogSegmentMetadata metadata, final RemoteStorageManager.IndexType type) {
        throw new UnsupportedOperationException();
    }

    @Override
    void deleteLogSegmentData(final RemoteLogSegmentMetadata metadata) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
