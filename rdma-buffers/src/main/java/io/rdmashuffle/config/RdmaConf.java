package io.rdmashuffle.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The values of every {@link RdmaShuffleConfig} entry as one engine's configuration sets them,
 * parsed and validated once, when the plugin starts. A bad value, or a key under our prefix that
 * no entry declares (a typo), fails here with a message naming the key and the value; nothing
 * falls back to a default silently. Immutable and thread-safe.
 */
public final class RdmaConf {
  private final KeyStyle style;
  private final Map<ConfigEntry<?>, Object> values;
  private final Map<String, String> explicitlySet;

  private RdmaConf(KeyStyle style, Map<ConfigEntry<?>, Object> values, Map<String, String> set) {
    this.style = style;
    this.values = values;
    this.explicitlySet = set;
  }

  /**
   * Reads every entry from {@code source} under {@code style}'s prefix.
   *
   * @throws ConfigException for the first bad value or unknown key, naming key and value
   */
  public static RdmaConf load(KeyStyle style, ConfigSource source) {
    Map<String, ConfigEntry<?>> byKey = new HashMap<>();
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      byKey.put(e.key(style), e);
    }
    List<String> unknown = new ArrayList<>();
    for (String key : source.keys()) {
      if (key.startsWith(style.prefix()) && !byKey.containsKey(key)) {
        unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      Collections.sort(unknown);
      String key = unknown.get(0);
      throw new ConfigException(
          key + "=" + source.get(key) + ": unknown setting (see docs/configuration.md for the"
              + " settings under " + style.prefix() + ")");
    }
    Map<ConfigEntry<?>, Object> values = new HashMap<>();
    Map<String, String> set = new TreeMap<>();
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      String fullKey = e.key(style);
      String raw = source.get(fullKey);
      if (raw == null) {
        values.put(e, e.defaultValue());
      } else {
        values.put(e, e.parse(fullKey, raw));
        set.put(fullKey, raw);
      }
    }
    RdmaConf conf = new RdmaConf(style, values, Collections.unmodifiableMap(set));
    conf.checkConsistency();
    return conf;
  }

  /** All defaults (tests, tools). */
  public static RdmaConf defaults(KeyStyle style) {
    return load(style, ConfigSource.empty());
  }

  public static RdmaConf of(KeyStyle style, Map<String, String> values) {
    return load(style, ConfigSource.of(values));
  }

  @SuppressWarnings("unchecked")
  public <T> T get(ConfigEntry<T> entry) {
    return (T) values.get(entry);
  }

  public KeyStyle style() {
    return style;
  }

  /** The full key of an entry in this engine's configuration, for messages. */
  public String keyOf(ConfigEntry<?> entry) {
    return entry.key(style);
  }

  /** The settings the operator set explicitly (full key to raw value). */
  public Map<String, String> explicitlySet() {
    return explicitlySet;
  }

  /** A copy with some entries changed; values are given as an operator would write them. */
  public RdmaConf with(Map<ConfigEntry<?>, String> changes) {
    Map<String, String> raw = new TreeMap<>(explicitlySet);
    for (Map.Entry<ConfigEntry<?>, String> c : changes.entrySet()) {
      raw.put(c.getKey().key(style), c.getValue());
    }
    return of(style, raw);
  }

  private void checkConsistency() {
    long min = get(RdmaShuffleConfig.BUFFERS_MIN_SIZE);
    long chunk = get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE);
    long max = get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
    if (chunk < min) {
      throw new ConfigException(
          keyOf(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE) + "=" + ConfigType.BYTES.format(chunk)
              + ": must be at least " + keyOf(RdmaShuffleConfig.BUFFERS_MIN_SIZE) + "="
              + ConfigType.BYTES.format(min));
    }
    if (max < chunk) {
      throw new ConfigException(
          keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES) + "=" + ConfigType.BYTES.format(max)
              + ": must be at least " + keyOf(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE) + "="
              + ConfigType.BYTES.format(chunk));
    }
  }

  @Override
  public String toString() {
    return "RdmaConf" + explicitlySet;
  }
}
