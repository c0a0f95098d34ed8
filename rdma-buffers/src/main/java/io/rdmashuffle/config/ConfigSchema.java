/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The settings one reader of our configuration understands and the prefix it reads them under: the
 * core's own settings ({@link RdmaShuffleConfig#ALL}) plus those its engine adapter declares. The
 * core knows no engine; each adapter declares its schema once (Spark's ShuffleManager reads {@code
 * spark.shuffle.rdma.*} from a SparkConf, a NodeManager service may read the same keys from {@code
 * yarn-site.xml}, MapReduce reads {@code mapreduce.shuffle.rdma.*}).
 */
public final class ConfigSchema {
  private final String name;
  private final String prefix;
  private final List<ConfigEntry<?>> own;
  private final List<ConfigEntry<?>> entries;
  private final Set<ConfigEntry<?>> declared;

  private ConfigSchema(String name, String prefix, List<ConfigEntry<?>> own) {
    if (prefix.isEmpty() || !prefix.endsWith(".")) {
      throw new IllegalArgumentException("prefix '" + prefix + "': must end with '.'");
    }
    this.name = Objects.requireNonNull(name);
    this.prefix = prefix;
    this.own = List.copyOf(own);
    List<ConfigEntry<?>> all = new ArrayList<>(RdmaShuffleConfig.ALL);
    Set<String> keys = new HashSet<>();
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      keys.add(e.key());
    }
    for (ConfigEntry<?> e : this.own) {
      if (!keys.add(e.key())) {
        throw new IllegalArgumentException(name + ": setting " + e.key() + " declared twice");
      }
      all.add(e);
    }
    this.entries = Collections.unmodifiableList(all);
    this.declared = Set.copyOf(all);
  }

  /**
   * The core's settings and {@code own}, read under {@code prefix}.
   *
   * @param name who reads them, for the configuration page ("Spark", "MapReduce reduce tasks")
   */
  public static ConfigSchema of(String name, String prefix, List<ConfigEntry<?>> own) {
    return new ConfigSchema(name, prefix, own);
  }

  /** Only the core's settings, under {@code prefix} (tools, tests, a service with no own keys). */
  public static ConfigSchema core(String name, String prefix) {
    return new ConfigSchema(name, prefix, List.of());
  }

  public String name() {
    return name;
  }

  public String prefix() {
    return prefix;
  }

  /** The full key of {@code entry} under this schema's prefix. */
  public String key(ConfigEntry<?> entry) {
    return prefix + entry.key();
  }

  /** The core's settings, then the adapter's own, in declaration order. */
  public List<ConfigEntry<?>> entries() {
    return entries;
  }

  /** The settings the adapter declared beside the core's. */
  public List<ConfigEntry<?>> own() {
    return own;
  }

  public boolean declares(ConfigEntry<?> entry) {
    return declared.contains(entry);
  }

  @Override
  public String toString() {
    return name + " (" + prefix + "*)";
  }
}
