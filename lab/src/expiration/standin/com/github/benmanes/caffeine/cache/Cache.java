package com.github.benmanes.caffeine.cache;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/** The lab's stand-in for Caffeine's Cache: a concurrent map (the lab never reads remote indexes). */
public class Cache<K, V> {
    private final ConcurrentMap<K, V> map = new ConcurrentHashMap<>();

    public ConcurrentMap<K, V> asMap() { return map; }
    public void put(K key, V value) { map.put(key, value); }
    public V get(K key, Function<? super K, ? extends V> mapping) { return map.computeIfAbsent(key, mapping); }
    public String stats() { return "no stats (lab stand-in)"; }
    public Policy<K, V> policy() { return new Policy<>(); }

    /** Stand-in policy: a bound that can be set and is never enforced. */
    public static final class Policy<K, V> {
        public Optional<Eviction> eviction() { return Optional.of(new Eviction()); }
    }

    /** Stand-in eviction policy. */
    public static final class Eviction {
        public void setMaximum(long maximum) { }
    }
}
