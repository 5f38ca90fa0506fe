package org.apache.iceberg.catalog;

import java.util.Map;

/** The lab's stand-in for the one Iceberg type the storage manager's config names. */
public interface Catalog {
    void initialize(String name, Map<String, String> properties);
}
