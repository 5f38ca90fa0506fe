package com.github.benmanes.caffeine.cache;

/** The lab's stand-in for Caffeine 3's builder (Debian's 2.6 lacks evictionListener): an unbounded map, never evicting. */
public final class Caffeine<K, V> {
    private Caffeine() { }

    public static Caffeine<Object, Object> newBuilder() { return new Caffeine<>(); }

    public Caffeine<K, V> maximumWeight(long weight) { return this; }

    @SuppressWarnings("unchecked")
    public <K1 extends K, V1 extends V> Caffeine<K1, V1> weigher(Weigher<? super K1, ? super V1> weigher) { return (Caffeine<K1, V1>) this; }

    @SuppressWarnings("unchecked")
    public <K1 extends K, V1 extends V> Caffeine<K1, V1> evictionListener(RemovalListener<? super K1, ? super V1> listener) { return (Caffeine<K1, V1>) this; }

    public <K1 extends K, V1 extends V> Cache<K1, V1> build() { return new Cache<>(); }
}
