package org.apache.iceberg.catalog;

/** The lab's stand-in for an Iceberg namespace, as the storage manager's config builds one. */
public final class Namespace {
    private final String[] levels;

    private Namespace(final String[] levels) {
        this.levels = levels;
    }

    public static Namespace empty() {
        return new Namespace(new String[0]);
    }

    public static Namespace of(final String... levels) {
        return new Namespace(levels.clone());
    }

    @Override
    public String toString() {
        return String.join(".", levels);
    }
}
