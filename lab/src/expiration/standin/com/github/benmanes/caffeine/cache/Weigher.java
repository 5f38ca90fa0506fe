package com.github.benmanes.caffeine.cache;

/** The lab's stand-in for Caffeine's weigher. */
@FunctionalInterface
public interface Weigher<K, V> {
    int weigh(K key, V value);
}
