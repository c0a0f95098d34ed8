package io.rdmashuffle.mapoutput;

import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Checksum;

/**
 * The map outputs this process serves, by shuffle and map id: publishes them (writes the meta
 * file, registers meta and data files read-only, builds the descriptor) and withdraws them when
 * their shuffle is unregistered or the process stops. Thread-safe; one per process.
 */
public final class MapOutputRegistry implements AutoCloseable {
  /** What a map output's checksums are, as its writer knows them. */
  public record Checksums(ChecksumAlgorithm algorithm, long[] values) {}

  private final MemoryRegistrar registrar;
  private final PeerAddress owner;
  private final String application;
  private final long pieceSize;
  private final boolean checksums;
  private final SecureRandom random = new SecureRandom();
  private final Map<Integer, Map<Long, PublishedMapOutput>> shuffles = new ConcurrentHashMap<>();
  /** Shuffles already unregistered: a late publish for one of them is withdrawn at once. */
  private final Set<Integer> removed = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.LongAdder publishedTotal =
      new java.util.concurrent.atomic.LongAdder();
  private volatile boolean closed;

  /**
   * @param owner the transport address readers connect to
   * @param application the application whose peers may READ the outputs
   * @param checksums whether map outputs publish per-partition checksums
   */
  public MapOutputRegistry(
      MemoryRegistrar registrar,
      PeerAddress owner,
      String application,
      long pieceSize,
      boolean checksums) {
    this.registrar = registrar;
    this.owner = owner;
    this.application = application;
    this.pieceSize = pieceSize;
    this.checksums = checksums;
  }

  /**
   * Publishes the committed map output in {@code dataFile}.
   *
   * @param lengths every partition's length in the data file, in partition order
   * @param known the checksums the writer computed over exactly the committed bytes, or null;
   *     without them (and with checksums on) a CRC32C of each partition is computed here
   * @throws IOException when the files can't be mapped, registered or written; nothing stays
   *     registered then
   */
  public PublishedMapOutput publish(
      int shuffleId, long mapId, Path dataFile, long[] lengths, Checksums known)
      throws IOException {
    if (closed) {
      throw new IOException("map output registry is closed");
    }
    long nonce = random.nextLong();
    long total = 0;
    for (long l : lengths) {
      total += l;
    }
    PublishedMapOutput out;
    if (total == 0) {
      out = new PublishedMapOutput(
          MapOutputDescriptor.empty(shuffleId, mapId, nonce, lengths.length), null, null, null);
    } else {
      out = register(shuffleId, mapId, nonce, dataFile, lengths, total, known,
          metaPathFor(dataFile));
    }
    Map<Long, PublishedMapOutput> maps =
        shuffles.computeIfAbsent(shuffleId, k -> new ConcurrentHashMap<>());
    publishedTotal.increment();
    PublishedMapOutput previous = maps.put(mapId, out);
    if (previous != null) {
      previous.close();
    }
    if (removed.contains(shuffleId) || closed) {
      // the shuffle was unregistered (or the process stopped) while this map committed
      removeShuffle(shuffleId);
    }
    return out;
  }

  private PublishedMapOutput register(
      int shuffleId,
      long mapId,
      long nonce,
      Path dataFile,
      long[] lengths,
      long total,
      Checksums known,
      Path metaFile)
      throws IOException {
    RegisteredFile data = RegisteredFile.open(dataFile, pieceSize, registrar, application);
    RegisteredFile meta = null;
    try {
      if (data.length() != total) {
        throw new IOException(
            "data file " + dataFile + " length=" + data.length() + ": partitions sum to " + total);
      }
      ChecksumAlgorithm algorithm = ChecksumAlgorithm.NONE;
      int[] sums = null;
      if (checksums) {
        if (known != null && known.values() != null && known.values().length == lengths.length
            && known.algorithm() != ChecksumAlgorithm.NONE) {
          algorithm = known.algorithm();
          sums = new int[lengths.length];
          for (int p = 0; p < sums.length; p++) {
            sums[p] = (int) known.values()[p];
          }
        } else {
          algorithm = ChecksumAlgorithm.CRC32C;
          sums = crc32c(data, lengths);
        }
      }
      ByteBuffer content =
          MapOutputMetaLayout.write(shuffleId, mapId, nonce, algorithm, lengths, sums);
      try (FileChannel ch = FileChannel.open(metaFile, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        while (content.hasRemaining()) {
          ch.write(content);
        }
      }
      meta = RegisteredFile.open(metaFile, pieceSize, registrar, application);
      MapOutputDescriptor d = new MapOutputDescriptor(shuffleId, mapId, nonce, lengths.length,
          algorithm, owner, meta.descriptor(), data.descriptor(), dataFile.toString());
      return new PublishedMapOutput(d, data, meta, metaFile);
    } catch (IOException | RuntimeException e) {
      if (meta != null) {
        meta.close();
      }
      data.close();
      Files.deleteIfExists(metaFile);
      throw e;
    }
  }

  /**
   * Where the meta file of the map output in {@code dataFile} lives: beside it, named after it
   * ({@code shuffle_1_2_0.data} has {@code shuffle_1_2_0.data.rdma-meta}). Readers on the same
   * host find it from the data file's path in the descriptor.
   */
  public static Path metaPathFor(Path dataFile) {
    return dataFile.resolveSibling(dataFile.getFileName() + ".rdma-meta");
  }

  /** A CRC32C of each partition, computed over the registered mapping (no copy). */
  static int[] crc32c(RegisteredFile data, long[] lengths) {
    int[] sums = new int[lengths.length];
    long pos = 0;
    for (int p = 0; p < lengths.length; p++) {
      Checksum c = ChecksumAlgorithm.CRC32C.newChecksum();
      long end = pos + lengths[p];
      while (pos < end) {
        int index = (int) (pos / data.pieceSize());
        RegisteredRegion r = data.pieces().get(index);
        int in = (int) (pos - index * data.pieceSize());
        int n = (int) Math.min(end - pos, r.length() - in);
        c.update(r.memory().buffer().slice(in, n));
        pos += n;
      }
      sums[p] = (int) c.getValue();
    }
    return sums;
  }

  /** The output of {@code mapId} in {@code shuffleId} this process serves, or null. */
  public PublishedMapOutput get(int shuffleId, long mapId) {
    Map<Long, PublishedMapOutput> maps = shuffles.get(shuffleId);
    return maps == null ? null : maps.get(mapId);
  }

  /** Withdraws every output of the shuffle; later publishes for it are withdrawn at once. */
  public void removeShuffle(int shuffleId) {
    removed.add(shuffleId);
    Map<Long, PublishedMapOutput> maps = shuffles.remove(shuffleId);
    if (maps != null) {
      maps.values().forEach(PublishedMapOutput::close);
    }
  }

  /** Map outputs published since the process started (withdrawn ones included). */
  public long publishedTotal() {
    return publishedTotal.sum();
  }

  /** Map outputs currently served. */
  public int published() {
    return shuffles.values().stream().mapToInt(Map::size).sum();
  }

  /** Bytes of map outputs currently registered. */
  public long registeredBytes() {
    return shuffles.values().stream()
        .flatMap(m -> m.values().stream())
        .mapToLong(PublishedMapOutput::registeredBytes)
        .sum();
  }

  /** Withdraws everything. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Integer s : shuffles.keySet()) {
      removeShuffle(s);
    }
  }
}
