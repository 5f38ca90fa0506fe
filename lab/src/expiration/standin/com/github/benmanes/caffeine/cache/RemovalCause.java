package com.github.benmanes.caffeine.cache;

/** The lab's stand-in for Caffeine's removal causes. */
public enum RemovalCause { EXPLICIT, REPLACED, COLLECTED, EXPIRED, SIZE }
