package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.FallbackLog;
import io.rdmashuffle.mapoutput.MapOutputRegistry;
import io.rdmashuffle.mapoutput.PublishedMapOutput;
import io.rdmashuffle.mapoutput.ShuffleRuntime;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
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
 * Writes a map task's output through the writer Spark's sort shuffle chose (so spills,
 * compression, encryption, checksums and the index stay Spark's), then, on commit, registers
 * the output read-only and publishes its descriptor in the map status's location
 * ({@code BlockManagerId.topologyInfo}), which Spark ships to reducers with the status.
 *
 * <p>When the output can't be published (no transport on this node, registration refused), the
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
    ShuffleRuntime runtime = manager.runtime("map output " + mapId + " of shuffle " + shuffleId);
    if (runtime == null) {
      return; // counted and logged by the manager
    }
    IndexShuffleBlockResolver resolver = manager.indexResolver();
    File dataFile = resolver.getDataFile(shuffleId, mapId);
    long[] lengths = sortWriter.getPartitionLengths();
    try {
      PublishedMapOutput out = runtime.registry().publish(shuffleId, mapId, dataFile.toPath(),
          lengths, sparkChecksums(resolver, lengths.length));
      BlockManagerId loc = status.location();
      status.updateLocation(BlockManagerId.apply(loc.executorId(), loc.host(), loc.port(),
          Option.apply(out.descriptor().toText(runtime.seal()))));
    } catch (IOException | RuntimeException e) {
      manager.fallbacks().record(FallbackLog.Cause.PUBLISH_FAILED,
          "map output " + mapId + " of shuffle " + shuffleId, e.toString());
    }
  }

  /** Spark's checksums of this output when they describe the committed bytes, else null. */
  private MapOutputRegistry.Checksums sparkChecksums(
      IndexShuffleBlockResolver resolver, int partitions) {
    ChecksumAlgorithm algorithm = manager.exactSparkChecksums();
    if (algorithm == null) {
      return null;
    }
    File f = resolver.getChecksumFile(shuffleId, mapId, algorithmName(algorithm), Option.empty());
    // Spark writes the file best-effort, and not at all for an output with no records
    if (!f.isFile() || f.length() != 8L * partitions) {
      return null;
    }
    long[] values = new long[partitions];
    try (DataInputStream in = new DataInputStream(Files.newInputStream(f.toPath()))) {
      for (int p = 0; p < partitions; p++) {
        values[p] = in.readLong();
      }
    } catch (IOException e) {
      return null;
    }
    return new MapOutputRegistry.Checksums(algorithm, values);
  }

  private static String algorithmName(ChecksumAlgorithm a) {
    return a.name();
  }
}
