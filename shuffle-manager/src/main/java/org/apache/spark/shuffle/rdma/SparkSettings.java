/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.spark.SparkTransportSecret;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.SecurityManager;
import org.apache.spark.SparkConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * What the plugin reads from a SparkConf: our settings ({@code spark.shuffle.rdma.*}, parsed and
 * validated once, so a bad value stops the driver or executor at start with a message naming key
 * and value), the Spark settings the reader mirrors, and the two policies that depend on Spark's
 * own settings (the transport secret, and whether Spark's shuffle checksums describe the committed
 * bytes).
 */
final class SparkSettings {
  private static final Logger LOG = LoggerFactory.getLogger(SparkSettings.class);

  /** Codecs whose streams can be concatenated (Spark's own list: the built-in ones). */
  private static final Set<String> CONCATENATING_CODECS =
      Set.of(
          "lz4",
          "lzf",
          "snappy",
          "zstd",
          "org.apache.spark.io.lz4compressioncodec",
          "org.apache.spark.io.lzfcompressioncodec",
          "org.apache.spark.io.snappycompressioncodec",
          "org.apache.spark.io.zstdcompressioncodec");

  private SparkSettings() {}

  /** Our settings from {@code conf}; throws ConfigException naming key and value. */
  static RdmaConf load(SparkConf conf) {
    Map<String, String> all = new TreeMap<>();
    for (Tuple2<String, String> kv : conf.getAll()) {
      all.put(kv._1(), kv._2());
    }
    return RdmaConf.load(SparkConfig.SCHEMA, ConfigSource.of(all));
  }

  /** Spark settings that make it encrypt network traffic, which our transport does not. */
  private static final String[] ENCRYPTION = {
    "spark.network.crypto.enabled",
    "spark.authenticate.enableSaslEncryption",
    "spark.ssl.rpc.enabled"
  };

  private static final String ENCRYPTION_CAUSE = "Spark encrypts network traffic";

  /**
   * Why every shuffle of the application must run Spark's stock shuffle, or null: switched off, or
   * Spark set to encrypt network traffic (our transport does not encrypt, and shuffle bytes must
   * never cross the network in clear when the operator asked for encryption).
   */
  static String disabledBecause(SparkConf conf, RdmaConf settings) {
    if (!settings.get(SparkConfig.ENABLED)) {
      return settings.keyOf(SparkConfig.ENABLED) + "=false";
    }
    for (String key : ENCRYPTION) {
      if (conf.getBoolean(key, false)) {
        return ENCRYPTION_CAUSE
            + " ("
            + key
            + "=true) and rdma-shuffle's transport does not"
            + " encrypt: Spark's stock shuffle moves the blocks, encrypted";
      }
    }
    return null;
  }

  static boolean isEncryptionCause(String cause) {
    return cause != null && cause.startsWith(ENCRYPTION_CAUSE);
  }

  /**
   * Our settings for an executor running {@code cores} tasks at once: unless the operator sized the
   * READ buffer pool ({@code buffers.maxBytes}), it holds every task's window twice (the bytes on
   * the wire and what its consumer holds: {@link FetchOptions}), and never less than the default.
   */
  static RdmaConf forExecutor(SparkConf conf, RdmaConf settings, int cores) {
    if (settings.explicitlySet().containsKey(settings.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES))) {
      return settings;
    }
    long pool =
        Math.max(
            settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES),
            2L * Math.max(1, cores) * maxSizeInFlight(conf));
    return settings.with(Map.of(RdmaShuffleConfig.BUFFERS_MAX_BYTES, Long.toString(pool)));
  }

  /**
   * How a reduce task fetches. Its window (bytes on the wire) is {@code
   * spark.reducer.maxSizeInFlight}, as Spark's own fetcher's; only a READ buffer pool the operator
   * made smaller than every task's window twice (see {@link #forExecutor}) shrinks it, to the
   * task's share of the pool, so the tasks running at once never starve each other. Remote failures
   * are retried as Spark's fetcher retries ({@code spark.shuffle.io.maxRetries}, {@code
   * spark.shuffle.io.retryWait}); a task waits {@code read.timeout} for a buffer before it fails
   * itself.
   */
  static FetchOptions fetchOptions(SparkConf conf, RdmaConf settings, int cores) {
    long pool = settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
    long share = Math.max(64 * 1024, Math.min(maxSizeInFlight(conf), pool / (2L * cores)));
    long segment =
        Math.max(64 * 1024, Math.min(settings.get(SparkConfig.READ_SEGMENT_SIZE), share));
    return new FetchOptions(
        share,
        maxReqsInFlight(conf),
        (int) segment,
        readLocal(settings),
        settings.get(SparkConfig.CHECKSUM_VERIFY),
        settings.get(RdmaShuffleConfig.READ_TIMEOUT).toMillis(),
        conf.getInt("spark.shuffle.io.maxRetries", 3),
        conf.getTimeAsMs("spark.shuffle.io.retryWait", "5s"));
  }

  /**
   * What rdma-shuffle holds outside the JVM heap in an executor, when it is more than {@code
   * spark.executor.memoryOverhead} (YARN and Kubernetes charge it there and kill a container over
   * its memory): a warning naming the settings, or null. The READ buffer pool is direct memory with
   * either transport; with verbs without on-demand paging the served outputs' pinned pages count
   * too. Pages tcp serves with sendfile are the kernel's page cache, not the process's.
   */
  static String overheadWarning(SparkConf conf, RdmaConf settings, boolean pinsServed) {
    long pool = settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
    long pinned = pinsServed ? settings.get(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES) : 0;
    long memory = conf.getSizeAsMb("spark.executor.memory", "1g") * 1024 * 1024;
    double factor = conf.getDouble("spark.executor.memoryOverheadFactor", 0.10);
    long overhead =
        conf.contains("spark.executor.memoryOverhead")
            ? conf.getSizeAsMb("spark.executor.memoryOverhead", "384m") * 1024 * 1024
            : Math.max(384L << 20, (long) (memory * factor));
    if (pool + pinned <= overhead) {
      return null;
    }
    return settings.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES)
        + "="
        + pool
        + (pinsServed
            ? " and " + settings.keyOf(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES) + "=" + pinned
            : "")
        + " may hold "
        + (pool + pinned)
        + " bytes outside the heap, more than spark.executor.memoryOverhead ("
        + overhead
        + " bytes): raise the overhead or lower those bounds, or the cluster manager may kill"
        + " the executor for its memory";
  }

  /** {@code spark.reducer.maxSizeInFlight} in bytes (a plain number is MiB, as Spark reads it). */
  static long maxSizeInFlight(SparkConf conf) {
    return conf.getSizeAsMb("spark.reducer.maxSizeInFlight", "48m") * 1024 * 1024;
  }

  /** {@code spark.reducer.maxReqsInFlight}. */
  static int maxReqsInFlight(SparkConf conf) {
    return conf.getInt("spark.reducer.maxReqsInFlight", Integer.MAX_VALUE);
  }

  /**
   * The secret the transport's handshake proves, derived from the application id and:
   *
   * <ul>
   *   <li>with {@code spark.authenticate=true}, Spark's own authentication secret (the one its RPC
   *       and block transfer use), so only processes of this application can connect and READ its
   *       map outputs;
   *   <li>otherwise nothing secret: Spark itself then lets any process fetch any block, and we
   *       don't pretend to do better. The application id still keeps applications apart (a peer of
   *       another application proves another secret and is refused), which prevents mistakes but
   *       not an attacker who knows the application id.
   * </ul>
   *
   * Always 32 bytes (SHA-256), whatever the length of Spark's secret; derived by {@link
   * SparkTransportSecret}, as the NodeManager's Spark service derives it.
   */
  static byte[] secret(SecurityManager security, String application) {
    if (security != null && security.isAuthenticationEnabled()) {
      return SparkTransportSecret.derive(application, security.getSecretKey());
    }
    LOG.warn(
        "rdma-shuffle security: spark.authenticate is off, so the transport's secret derives"
            + " from the application id, which is not secret: applications are kept apart by"
            + " accident only, and anyone who reaches this executor and learns the id can READ"
            + " its map outputs (as Spark's own block transfer without it); set"
            + " spark.authenticate=true to have peers prove Spark's secret");
    return SparkTransportSecret.derive(application, null);
  }

  /** Spark's setting: which checksum its writers compute for each partition while they write. */
  static final String CHECKSUM_ALGORITHM = "spark.shuffle.checksum.algorithm";

  /**
   * The checksum Spark's writers compute when the application chose none: CRC32 (Spark 3.5 and 4
   * both know it), instead of Spark's default Adler32. The reader verifies every byte it reads, a
   * block READ whole in its direct buffer, where the JDK computes Adler32 in zlib's code (0.24 s of
   * CPU per GB measured here by {@code bench checksum}) and CRC32 with the processor's carry-less
   * multiplication (0.026 s per GB). On the heap arrays Spark's writers pass, both are cheap.
   */
  static final String WRITE_CHECKSUM = "CRC32";

  /** Sets {@link #CHECKSUM_ALGORITHM} to {@link #WRITE_CHECKSUM} unless the application set it. */
  static void chooseWriteChecksum(SparkConf conf) {
    conf.setIfMissing(CHECKSUM_ALGORITHM, WRITE_CHECKSUM);
  }

  /**
   * The algorithm of Spark's shuffle checksum file when its values are exactly the checksums of the
   * committed partitions, else null (then the map side computes CRC32C itself).
   *
   * <p>Spark computes its checksums while writing, and some writers rewrite bytes afterwards: the
   * unsafe writer's slow spill merge re-compresses (fast merge off, or a codec whose streams can't
   * be concatenated) and, with I/O encryption on, re-encrypts with a fresh IV. Spark only uses the
   * file to diagnose corruption, so a stale value costs it nothing; we would turn it into a fetch
   * failure, so we only take Spark's values where no writer rewrites.
   */
  static ChecksumAlgorithm exactSparkChecksums(SparkConf conf) {
    if (!conf.getBoolean("spark.shuffle.checksum.enabled", true)) {
      return null;
    }
    // re-encrypted, or re-compressed by a merge that can't concatenate
    if (!concatenatingStreams(conf)) {
      return null;
    }
    if (conf.getBoolean("spark.shuffle.compress", true)
        && !conf.getBoolean("spark.shuffle.unsafe.fastMergeEnabled", true)) {
      return null;
    }
    return ChecksumAlgorithm.fromSparkName(conf.get(CHECKSUM_ALGORITHM, "ADLER32"));
  }

  /**
   * Whether the streams of a map output's contiguous blocks can be read as one, as Spark's own
   * reader decides for a batch fetch: compression off or by a codec whose streams concatenate, and
   * no I/O encryption (SPARK-34790); the serializer must allow relocation too ({@link
   * org.apache.spark.serializer.Serializer#supportsRelocationOfSerializedObjects}).
   */
  static boolean concatenatingStreams(SparkConf conf) {
    if (conf.getBoolean("spark.io.encryption.enabled", false)) {
      return false;
    }
    return !conf.getBoolean("spark.shuffle.compress", true)
        || CONCATENATING_CODECS.contains(
            conf.get("spark.io.compression.codec", "lz4").trim().toLowerCase(Locale.ROOT));
  }

  static boolean readLocal(RdmaConf conf) {
    return conf.get(SparkConfig.READ_LOCAL);
  }
}
