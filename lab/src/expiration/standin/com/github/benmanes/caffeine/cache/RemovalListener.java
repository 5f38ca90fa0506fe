package com.github.benmanes.caffeine.cache;

/** The lab's stand-in for Caffeine's removal listener. */
@FunctionalInterface
public interface RemovalListener<K, V> {
    void onRemoval(K key, V value, RemovalCause cause);
}
