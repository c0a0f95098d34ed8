/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Read access to an engine's key/value configuration. Engine adapters wrap SparkConf or a Hadoop
 * Configuration in one of these; nothing else here knows either engine.
 */
public interface ConfigSource {
  /** The raw value of a full key, or null when it is not set. */
  String get(String fullKey);

  /** Every key set in this source (used to reject misspelled keys under our prefix). */
  Iterable<String> keys();

  static ConfigSource of(Map<String, String> values) {
    Map<String, String> copy = new TreeMap<>(values);
    return new ConfigSource() {
      @Override
      public String get(String fullKey) {
        return copy.get(fullKey);
      }

      @Override
      public Iterable<String> keys() {
        return copy.keySet();
      }
    };
  }

  static ConfigSource of(Properties properties) {
    Map<String, String> map = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name));
    }
    return of(map);
  }

  static ConfigSource empty() {
    return of(Map.of());
  }
}
