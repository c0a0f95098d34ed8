/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.shuffle.IndexShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.storage.BlockManagerId;
import scala.Option;
import scala.Product2;
import scala.collection.Iterator;

/**
 * Writes a map task's output through the writer Spark's sort shuffle chose (so spills, compression,
 * encryption, checksums and the index stay Spark's), then, on commit, publishes the output (its
 * meta file with each partition's checksum; registered now when there is room) and puts this
 * executor's {@link io.rdmashuffle.mapoutput.OwnerMarker} in the map status's location ({@code
 * BlockManagerId.topologyInfo}): the same for every output of this executor, so Spark sees one
 * location per executor, as with the stock shuffle.
 *
 * <p>When the output can't be published (no transport on this node, an unreadable data file), the
 * status goes out unchanged: reducers then read this map output the stock way (counted).
 */
final class RdmaShuffleWriter<K, V> extends ShuffleWriter<K, V> {
  private final ShuffleWriter<K, V> sortWriter;
  private final RdmaShuffleManager manager;
  private final int shuffleId;
  private final long mapId;
  private final ShuffleWriteMetricsReporter metrics;
  private boolean stopped;

  RdmaShuffleWriter(
      ShuffleWriter<K, V> sortWriter,
      RdmaShuffleManager manager,
      int shuffleId,
      long mapId,
      ShuffleWriteMetricsReporter metrics) {
    this.sortWriter = sortWriter;
    this.manager = manager;
    this.shuffleId = shuffleId;
    this.mapId = mapId;
    this.metrics = metrics;
  }

  @Override
  public void write(Iterator<Product2<K, V>> records) throws IOException {
    sortWriter.write(records);
  }

  @Override
  public Option<MapStatus> stop(boolean success) {
    Option<MapStatus> status = sortWriter.stop(success);
    if (success && !stopped && status.isDefined()) {
      stopped = true;
      long t0 = System.nanoTime();
      publish(status.get());
      // committing is part of writing the map output: the UI shows it as shuffle write time
      metrics.incWriteTime(System.nanoTime() - t0);
    }
    stopped = true;
    return status;
  }

  @Override
  public long[] getPartitionLengths() {
    return sortWriter.getPartitionLengths();
  }

  private void publish(MapStatus status) {
    SparkNode node = manager.node("map output " + mapId + " of shuffle " + shuffleId);
    if (node == null) {
      return; // counted and logged by the manager
    }
    IndexShuffleBlockResolver resolver = manager.indexResolver();
    File dataFile = resolver.getDataFile(shuffleId, mapId);
    long[] lengths = sortWriter.getPartitionLengths();
    ChecksumAlgorithm algorithm = manager.exactSparkChecksums();
    long[] known = algorithm == null ? null : sparkChecksums(resolver, algorithm, lengths.length);
    try {
      node.publish(
          shuffleId, mapId, dataFile.toPath(), lengths, known == null ? null : algorithm, known);
      BlockManagerId loc = status.location();
      status.updateLocation(
          BlockManagerId.apply(
              loc.executorId(), loc.host(), loc.port(), Option.apply(node.marker().toText())));
    } catch (IOException | RuntimeException e) {
      manager
          .fallbacks()
          .record(
              FallbackLog.Cause.PUBLISH_FAILED,
              "map output " + mapId + " of shuffle " + shuffleId,
              e.toString());
    }
  }

  /**
   * Spark's checksums of this output when they describe the committed bytes, else null. The file is
   * read whole, in one read: 8 bytes a partition read one at a time cost a system call each (at
   * 4,000 partitions, more than the rest of a small map task).
   */
  private long[] sparkChecksums(
      IndexShuffleBlockResolver resolver, ChecksumAlgorithm algorithm, int partitions) {
    File f = resolver.getChecksumFile(shuffleId, mapId, algorithm.name(), Option.empty());
    // Spark writes the file best-effort, and not at all for an output with no records
    if (!f.isFile() || f.length() != 8L * partitions) {
      return null;
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(f.toPath());
    } catch (IOException e) {
      return null;
    }
    if (bytes.length != 8L * partitions) {
      return null; // rewritten meanwhile
    }
    long[] values = new long[partitions];
    ByteBuffer.wrap(bytes).asLongBuffer().get(values); // big-endian, as Spark writes them
    return values;
  }
}
