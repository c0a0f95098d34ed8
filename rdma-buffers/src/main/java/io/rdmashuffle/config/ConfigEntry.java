/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * One setting, declared once: key, type, default, unit, documentation and valid range. The core's
 * settings live in {@link RdmaShuffleConfig}, an engine adapter's own beside its {@link
 * ConfigSchema}; engines read them through {@link RdmaConf}, and the operator templates and the
 * configuration page are generated from them (module {@code conf}).
 *
 * <p>The key is engine-neutral ({@code transport}); each schema reads it under its own prefix:
 * {@code spark.shuffle.rdma.transport} in a SparkConf, {@code mapreduce.shuffle.rdma.transport} in
 * a Hadoop {@code Configuration}.
 */
public final class ConfigEntry<T> {
  private final String key;
  private final ConfigType<T> type;
  private final T defaultValue;
  private final String unit;
  private final String doc;
  private final T min;
  private final T max;
  private final Predicate<T> rule;
  private final String ruleDoc;
  private final Side side;

  /**
   * Which side of a shuffle reads a setting: the process that serves map outputs, the one that
   * fetches them, or both. A Spark executor is both; in Hadoop the serving side is the
   * NodeManager's auxiliary service ({@code yarn-site.xml}) and the fetching side the reduce task
   * ({@code mapred-site.xml}), so each Hadoop template lists only its side's settings.
   */
  public enum Side {
    /** Read where map outputs are served (Hadoop: the NodeManager service). */
    SERVING,
    /** Read where map outputs are fetched (Hadoop: reduce tasks). */
    FETCHING,
    /** Read on both sides. */
    BOTH
  }

  private ConfigEntry(Builder<T> b) {
    this.key = b.key;
    this.type = b.type;
    this.defaultValue = b.defaultValue;
    this.unit = b.unit;
    this.doc = b.doc;
    this.min = b.min;
    this.max = b.max;
    this.rule = b.rule;
    this.ruleDoc = b.ruleDoc;
    this.side = b.side;
    // the declaration itself must be valid: a default outside its own range is a bug here
    check(defaultValue, "(default of " + key + ")");
  }

  public static <T> Builder<T> builder(String key, ConfigType<T> type) {
    return new Builder<>(key, type);
  }

  public String key() {
    return key;
  }

  public ConfigType<T> type() {
    return type;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String defaultText() {
    return type.format(defaultValue);
  }

  public String unit() {
    return unit;
  }

  public String doc() {
    return doc;
  }

  public Side side() {
    return side;
  }

  /** Whether the {@code side} of a shuffle reads this setting. */
  public boolean readOn(Side where) {
    return side == Side.BOTH || where == Side.BOTH || side == where;
  }

  /** The valid values in words, for the configuration page; empty when any value of the type is. */
  public String rangeText() {
    StringBuilder sb = new StringBuilder();
    if (min != null && max != null) {
      sb.append(type.format(min)).append(" .. ").append(type.format(max));
    } else if (min != null) {
      sb.append(">= ").append(type.format(min));
    } else if (max != null) {
      sb.append("<= ").append(type.format(max));
    }
    if (ruleDoc != null) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(ruleDoc);
    }
    return sb.toString();
  }

  /**
   * Parses and validates a raw value as found under {@code fullKey}.
   *
   * @throws ConfigException naming the key and the value when it can't be used
   */
  public T parse(String fullKey, String raw) {
    T value;
    try {
      value = type.parse(raw);
    } catch (IllegalArgumentException e) {
      throw ConfigException.badValue(fullKey, raw, e.getMessage());
    }
    check(value, fullKey + "=" + raw);
    return value;
  }

  private void check(T value, String where) {
    if (min != null && type.compare(value, min) < 0) {
      throw new ConfigException(where + ": must be at least " + type.format(min));
    }
    if (max != null && type.compare(value, max) > 0) {
      throw new ConfigException(where + ": must be at most " + type.format(max));
    }
    if (rule != null && !rule.test(value)) {
      throw new ConfigException(where + ": must be " + ruleDoc);
    }
  }

  @Override
  public String toString() {
    return key;
  }

  /** Declares one entry: {@link RdmaShuffleConfig}, or an engine adapter for its own. */
  public static final class Builder<T> {
    private final String key;
    private final ConfigType<T> type;
    private T defaultValue;
    private String unit = "";
    private String doc;
    private T min;
    private T max;
    private Predicate<T> rule;
    private String ruleDoc;
    private Side side = Side.BOTH;

    private Builder(String key, ConfigType<T> type) {
      this.key = Objects.requireNonNull(key);
      this.type = Objects.requireNonNull(type);
    }

    public Builder<T> defaultValue(T value) {
      this.defaultValue = value;
      return this;
    }

    public Builder<T> unit(String value) {
      this.unit = value;
      return this;
    }

    public Builder<T> doc(String value) {
      this.doc = value;
      return this;
    }

    public Builder<T> min(T value) {
      this.min = value;
      return this;
    }

    public Builder<T> max(T value) {
      this.max = value;
      return this;
    }

    public Builder<T> range(T low, T high) {
      return min(low).max(high);
    }

    /** An extra rule, with the words the page and the error message use for it. */
    public Builder<T> rule(Predicate<T> value, String words) {
      this.rule = value;
      this.ruleDoc = words;
      return this;
    }

    public Builder<T> side(Side value) {
      this.side = value;
      return this;
    }

    public ConfigEntry<T> build() {
      Objects.requireNonNull(defaultValue, () -> "default of " + key);
      Objects.requireNonNull(doc, () -> "doc of " + key);
      return new ConfigEntry<>(this);
    }
  }
}
