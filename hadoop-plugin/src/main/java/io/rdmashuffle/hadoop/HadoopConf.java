/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads our settings from a Hadoop {@link Configuration}: MapReduce's ({@code
 * mapreduce.shuffle.rdma.*}) from the NodeManager's (yarn-site.xml) for the service and from the
 * job's (mapred-site.xml and the job's own settings) for reduce tasks; any other schema's (a
 * NodeManager service reading Spark's keys from yarn-site.xml) with {@link #load(ConfigSchema,
 * Configuration)}.
 */
public final class HadoopConf {
  private HadoopConf() {}

  /**
   * Parses and validates every setting once.
   *
   * @throws io.rdmashuffle.config.ConfigException naming the key and the value when one can't be
   *     used, or when a key under {@code mapreduce.shuffle.rdma.} is not a setting (a typo)
   */
  public static RdmaConf load(Configuration conf) {
    return load(MapReduceConfig.SCHEMA, conf);
  }

  /** {@code schema}'s settings, as {@link #load(Configuration)} reads MapReduce's. */
  public static RdmaConf load(ConfigSchema schema, Configuration conf) {
    return RdmaConf.load(schema, source(schema, conf));
  }

  /** A view of {@code conf}; values are read with Hadoop's variable expansion. */
  public static ConfigSource source(ConfigSchema schema, Configuration conf) {
    return new ConfigSource() {
      @Override
      public String get(String fullKey) {
        return conf.get(fullKey);
      }

      @Override
      public Iterable<String> keys() {
        List<String> keys = new ArrayList<>();
        for (Map.Entry<String, String> e : conf) {
          if (e.getKey().startsWith(schema.prefix())) {
            keys.add(e.getKey());
          }
        }
        return keys;
      }
    };
  }

  /**
   * Whether this NodeManager runs containers as their job's user, so that map outputs belong to it
   * and the services check that they do: with Hadoop security (Kerberos) on, as the stock shuffle
   * checks, and also without it where LinuxContainerExecutor runs each container as the user who
   * submitted it ({@code nonsecure-mode.limit-users=false}).
   */
  public static boolean containersRunAsTheirUsers(Configuration conf) {
    if (org.apache.hadoop.security.UserGroupInformation.isSecurityEnabled()) {
      return true;
    }
    String executor = conf.get("yarn.nodemanager.container-executor.class", "");
    return executor.endsWith(".LinuxContainerExecutor")
        && !conf.getBoolean(
            "yarn.nodemanager.linux-container-executor.nonsecure-mode.limit-users", true);
  }

  /**
   * The host a NodeManager service or reduce task advertises when {@code host} is not set: this
   * machine's canonical name, as Hadoop names nodes.
   */
  public static String localHost() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
