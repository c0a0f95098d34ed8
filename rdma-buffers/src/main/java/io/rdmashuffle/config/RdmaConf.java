/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The values of every entry of a {@link ConfigSchema} as one engine's configuration sets them,
 * parsed and validated once, when the plugin starts. A bad value, or a key under our prefix that no
 * entry declares (a typo), fails here with a message naming the key and the value; nothing falls
 * back to a default silently. Immutable and thread-safe.
 */
public final class RdmaConf {
  private final ConfigSchema schema;
  private final Map<ConfigEntry<?>, Object> values;
  private final Map<String, String> explicitlySet;

  private RdmaConf(
      ConfigSchema schema, Map<ConfigEntry<?>, Object> values, Map<String, String> set) {
    this.schema = schema;
    this.values = values;
    this.explicitlySet = set;
  }

  /**
   * Reads every entry of {@code schema} from {@code source}, under the schema's prefix.
   *
   * @throws ConfigException for the first bad value or unknown key, naming key and value
   */
  public static RdmaConf load(ConfigSchema schema, ConfigSource source) {
    Map<String, ConfigEntry<?>> byKey = new HashMap<>();
    for (ConfigEntry<?> e : schema.entries()) {
      byKey.put(schema.key(e), e);
    }
    List<String> unknown = new ArrayList<>();
    for (String key : source.keys()) {
      if (key.startsWith(schema.prefix()) && !byKey.containsKey(key)) {
        unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      Collections.sort(unknown);
      String key = unknown.get(0);
      throw new ConfigException(
          key
              + "="
              + source.get(key)
              + ": unknown setting (see docs/configuration.md for the"
              + " settings under "
              + schema.prefix()
              + ")");
    }
    Map<ConfigEntry<?>, Object> values = new HashMap<>();
    Map<String, String> set = new TreeMap<>();
    for (ConfigEntry<?> e : schema.entries()) {
      String fullKey = schema.key(e);
      String raw = source.get(fullKey);
      if (raw == null) {
        values.put(e, e.defaultValue());
      } else {
        values.put(e, e.parse(fullKey, raw));
        set.put(fullKey, raw);
      }
    }
    RdmaConf conf = new RdmaConf(schema, values, Collections.unmodifiableMap(set));
    conf.checkConsistency();
    return conf;
  }

  /** All defaults (tests, tools). */
  public static RdmaConf defaults(ConfigSchema schema) {
    return load(schema, ConfigSource.empty());
  }

  public static RdmaConf of(ConfigSchema schema, Map<String, String> values) {
    return load(schema, ConfigSource.of(values));
  }

  /**
   * @throws IllegalArgumentException when the schema does not declare {@code entry}
   */
  @SuppressWarnings("unchecked")
  public <T> T get(ConfigEntry<T> entry) {
    if (!schema.declares(entry)) {
      throw new IllegalArgumentException(entry.key() + ": not a setting of " + schema);
    }
    return (T) values.get(entry);
  }

  public ConfigSchema schema() {
    return schema;
  }

  /** The full key of an entry in this engine's configuration, for messages. */
  public String keyOf(ConfigEntry<?> entry) {
    return schema.key(entry);
  }

  /** The settings the operator set explicitly (full key to raw value). */
  public Map<String, String> explicitlySet() {
    return explicitlySet;
  }

  /** A copy with some entries changed; values are given as an operator would write them. */
  public RdmaConf with(Map<ConfigEntry<?>, String> changes) {
    Map<String, String> raw = new TreeMap<>(explicitlySet);
    for (Map.Entry<ConfigEntry<?>, String> c : changes.entrySet()) {
      raw.put(schema.key(c.getKey()), c.getValue());
    }
    return of(schema, raw);
  }

  private void checkConsistency() {
    long min = get(RdmaShuffleConfig.BUFFERS_MIN_SIZE);
    long chunk = get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE);
    long max = get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
    if (chunk < min) {
      throw new ConfigException(
          keyOf(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE)
              + "="
              + ConfigType.BYTES.format(chunk)
              + ": must be at least "
              + keyOf(RdmaShuffleConfig.BUFFERS_MIN_SIZE)
              + "="
              + ConfigType.BYTES.format(min));
    }
    if (max < chunk) {
      throw new ConfigException(
          keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES)
              + "="
              + ConfigType.BYTES.format(max)
              + ": must be at least "
              + keyOf(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE)
              + "="
              + ConfigType.BYTES.format(chunk));
    }
  }

  @Override
  public String toString() {
    return "RdmaConf" + explicitlySet;
  }
}
