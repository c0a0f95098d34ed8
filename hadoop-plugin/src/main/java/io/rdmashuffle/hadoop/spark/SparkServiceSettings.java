/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.spark.SparkNodeService;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.network.shuffledb.DBBackend;
import org.apache.spark.network.util.ConfigProvider;
import org.apache.spark.network.util.TransportConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark service's settings, all from the NodeManager's {@code yarn-site.xml}, spelled as Spark
 * spells them (as for Spark's own YARN shuffle service): Spark's ({@code
 * spark.shuffle.service.port}, {@code spark.authenticate}, {@code spark.shuffle.io.*} of its
 * transport) and ours under {@code spark.shuffle.rdma.}, whose transport listens on {@code
 * spark.shuffle.rdma.nodeService.port} (the port executors name as their outputs' owner).
 */
final class SparkServiceSettings {
  private static final Logger LOG = LoggerFactory.getLogger(SparkServiceSettings.class);
  static final String PORT = "spark.shuffle.service.port";
  static final int DEFAULT_PORT = 7337;
  static final String AUTHENTICATE = "spark.authenticate";

  /** Spark's transport runs on NIO here: its Netty is relocated, without native libraries. */
  static final String IO_MODE = "spark.shuffle.io.mode";

  static final String DB_BACKEND = "spark.shuffle.service.db.backend";

  private SparkServiceSettings() {}

  /** Our settings; the connection server's port is {@code nodeService.port}. */
  static RdmaConf rdma(Configuration conf) {
    ConfigSource fromYarnSite = HadoopConf.source(SparkServiceConfig.SCHEMA, conf);
    RdmaConf settings = RdmaConf.load(SparkServiceConfig.SCHEMA, fromYarnSite);
    String portKey = SparkServiceConfig.SCHEMA.key(RdmaShuffleConfig.PORT);
    String port = Integer.toString(settings.get(SparkNodeService.PORT));
    return RdmaConf.load(
        SparkServiceConfig.SCHEMA,
        new ConfigSource() {
          @Override
          public String get(String fullKey) {
            return fullKey.equals(portKey) ? port : fromYarnSite.get(fullKey);
          }

          @Override
          public Iterable<String> keys() {
            return fromYarnSite.keys();
          }
        });
  }

  /** Spark's transport settings ({@code shuffle} module) over the NodeManager's configuration. */
  static TransportConf transport(Configuration conf) {
    String backend = conf.get(DB_BACKEND, DBBackend.LEVELDB.name());
    if (!backend.toUpperCase(Locale.ROOT).equals(DBBackend.LEVELDB.name())) {
      LOG.warn(
          "{}={}: the rdma-shuffle Spark service keeps its recovery database in LevelDB"
              + " (the NodeManager's own library)",
          DB_BACKEND,
          backend);
    }
    return new TransportConf(
        "shuffle",
        new ConfigProvider() {
          @Override
          public String get(String name) {
            if (name.equals(DB_BACKEND)) {
              return DBBackend.LEVELDB.name();
            }
            String v = conf.get(name);
            if (v == null && name.equals(IO_MODE)) {
              return "NIO";
            }
            if (v == null) {
              throw new java.util.NoSuchElementException(name);
            }
            return v;
          }

          @Override
          public Iterable<Map.Entry<String, String>> getAll() {
            return conf;
          }
        });
  }
}
