package io.rdmashuffle.mapoutput;

import io.rdmashuffle.fetch.SegmentFetcher;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.transport.ConnectionPool;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Checksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the blocks (partitions of map outputs) one reduce task needs and hands them over one at
 * a time, in the order they become available. The engine-neutral core of the Spark reader.
 *
 * <ul>
 *   <li>Map outputs this process serves are read straight from their registered mappings, and
 *       those of other processes on this host straight from their files ({@code readLocal}).
 *   <li>Others are READ: first the meta entries of the wanted partitions (one READ per map
 *       output), then the blocks, into pooled registered buffers through a {@link SegmentFetcher}
 *       (bytes and READs in flight bounded, one retry on a fresh connection). Consecutive small
 *       blocks of one map output are READ together up to {@code segmentSize}; a larger block is
 *       READ in segments and streamed to the consumer as they arrive.
 *   <li>Every block's checksum is verified before the consumer sees it (for a streamed block: as
 *       it is consumed, and at the latest when it is closed); a mismatch is a {@link
 *       BlockFetchException}, never wrong data.
 * </ul>
 *
 * <p>Not thread-safe: one consumer thread (the task's) calls {@link #next}, reads the streams and
 * closes them. {@link #close()} releases everything, whatever was consumed.
 */
public final class BlockFetcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BlockFetcher.class);

  /** How one task fetches. */
  public record Options(
      long maxBytesInFlight,
      int maxRequestsInFlight,
      int segmentSize,
      boolean readLocal,
      boolean verify,
      long allocationWaitMillis) {}

  /** One map output and the partitions wanted from it, with the engine's tag for each. */
  public record Source(MapOutputDescriptor descriptor, int[] partitions, Object tag) {
    public Source {
      partitions = partitions.clone();
      for (int i = 1; i < partitions.length; i++) {
        if (partitions[i] <= partitions[i - 1]) {
          throw new IllegalArgumentException(
              "partitions " + Arrays.toString(partitions) + ": must be ascending, distinct");
        }
      }
      for (int p : partitions) {
        if (p < 0 || p >= descriptor.partitions()) {
          throw new IllegalArgumentException(
              "partition " + p + ": the map output has " + descriptor.partitions());
        }
      }
    }

    int first() {
      return partitions[0];
    }

    int end() {
      return partitions[partitions.length - 1] + 1;
    }
  }

  /** A block handed to the consumer: read its {@link #stream()} once, then close it. */
  public abstract static class Block {
    private final Source source;
    private final int partition;
    private final long size;
    private final boolean remote;

    Block(Source source, int partition, long size, boolean remote) {
      this.source = source;
      this.partition = partition;
      this.size = size;
      this.remote = remote;
    }

    public Source source() {
      return source;
    }

    public int partition() {
      return partition;
    }

    /** The block's length in bytes. */
    public long size() {
      return size;
    }

    /** Whether it came through the transport (false: read on this host). */
    public boolean remote() {
      return remote;
    }

    /** The block's bytes; closing it releases the block. */
    public abstract InputStream stream();

    /** Releases the block's memory without reading further. Idempotent. */
    public abstract void release();
  }

  private final MapOutputRegistry registry;
  private final ConnectionPool connections;
  private final BufferPool buffers;
  private final String application;
  private final String localHost;
  private final Options options;
  private final ReadCounters counters;
  private final Runnable onWait;
  private final ArrayDeque<Block> ready = new ArrayDeque<>();
  private final Set<Block> open = Collections.newSetFromMap(new IdentityHashMap<>());
  private SegmentFetcher fetcher;
  private long waitNanos;
  private boolean closed;

  /**
   * @param registry the map outputs this process serves (read without the transport), or null
   * @param localHost this process's host as descriptors name it (same-host outputs are read from
   *     their files)
   * @param onWait called about every 100 ms while the consumer waits for a READ (engines check
   *     for task cancellation there; it may throw)
   */
  public BlockFetcher(
      MapOutputRegistry registry,
      ConnectionPool connections,
      BufferPool buffers,
      String application,
      String localHost,
      Options options,
      ReadCounters counters,
      Runnable onWait) {
    this.registry = registry;
    this.connections = connections;
    this.buffers = buffers;
    this.application = application;
    this.localHost = localHost;
    this.options = options;
    this.counters = counters;
    this.onWait = onWait;
  }

  /** Nanoseconds the consumer waited for READs so far. */
  public long waitNanos() {
    return waitNanos;
  }

  /**
   * Queues the blocks of one map output. Same-host blocks are looked up at once (their meta is
   * read now); remote ones are READ as {@link #next} admits them.
   */
  public void add(Source s) throws BlockFetchException {
    MapOutputDescriptor d = s.descriptor();
    if (d.isEmpty()) {
      for (int p : s.partitions()) {
        ready.add(new MemoryBlock(s, p, List.of(), null, 0, false, false));
      }
      return;
    }
    if (options.readLocal()) {
      PublishedMapOutput own = registry == null ? null : registry.get(d.shuffleId(), d.mapId());
      if (own != null && own.descriptor().nonce() == d.nonce() && !own.descriptor().isEmpty()) {
        addOwn(s, own);
        return;
      }
      if (d.owner().host().equals(localHost) && !d.dataPath().isEmpty() && addHostLocal(s)) {
        return;
      }
    }
    fetcher().add(new SegmentFetcher.Request(d.owner(), application, d.meta(),
        MapOutputMetaLayout.entriesOffset(s.first()),
        MapOutputMetaLayout.entriesLength(s.first(), s.end()), new MetaRead(s)));
  }

  private SegmentFetcher fetcher() {
    if (fetcher == null) {
      fetcher = new SegmentFetcher(connections, buffers, options.maxBytesInFlight(),
          options.maxRequestsInFlight(), options.allocationWaitMillis());
    }
    return fetcher;
  }

  private MapOutputMetaLayout.Ranges parse(Source s, ByteBuffer entries)
      throws BlockFetchException {
    MapOutputDescriptor d = s.descriptor();
    try {
      return MapOutputMetaLayout.parse(entries, s.first(), s.end(), d.nonce(), d.data().fileLength());
    } catch (IllegalArgumentException e) {
      throw failure(BlockFetchException.Kind.INVALID, s, s.first(), e.getMessage(), e);
    }
  }

  private void addOwn(Source s, PublishedMapOutput own) throws BlockFetchException {
    MapOutputMetaLayout.Ranges r;
    try {
      MapOutputMetaLayout.validateHeader(own.header(), s.descriptor());
      r = parse(s, own.entries(s.first(), s.end()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw failure(BlockFetchException.Kind.LOCAL, s, s.first(), e.getMessage(), e);
    }
    for (int p : s.partitions()) {
      PublishedMapOutput.Views v = own.slices(r.startOf(p), r.endOf(p));
      if (v == null) {
        throw failure(BlockFetchException.Kind.LOCAL, s, p,
            "the map output was withdrawn while being read", null);
      }
      ready.add(new MemoryBlock(s, p, v.parts(), v.release(), r.checksumOf(p), false, true));
    }
  }

  /** Reads a same-host map output from its files; false when they can't be opened. */
  private boolean addHostLocal(Source s) throws BlockFetchException {
    MapOutputDescriptor d = s.descriptor();
    MapOutputMetaLayout.Ranges r;
    HostLocalOutput out;
    try {
      r = HostLocalOutput.ranges(d, s.first(), s.end());
      long from = r.startOf(s.first());
      long to = r.endOf(s.partitions()[s.partitions().length - 1]);
      out = HostLocalOutput.map(d, from, to);
    } catch (IllegalArgumentException e) {
      throw failure(BlockFetchException.Kind.INVALID, s, s.first(), e.getMessage(), e);
    } catch (IOException e) {
      // not readable here (another user, another mount namespace, gone): READ it instead
      LOG.debug("reading {} through the transport: {}", d, e.toString());
      return false;
    }
    for (int p : s.partitions()) {
      List<ByteBuffer> parts = out.views(r.startOf(p), r.endOf(p));
      ready.add(new MemoryBlock(s, p, parts, out::release, r.checksumOf(p), false, true));
    }
    out.release();
    return true;
  }

  /**
   * The next block, or null when every block was handed over.
   *
   * @throws BlockFetchException when a block can't be read; the fetcher is unusable afterwards
   */
  public Block next() throws BlockFetchException, InterruptedException {
    if (closed) {
      throw new IllegalStateException("block fetcher is closed");
    }
    while (true) {
      Block b = ready.poll();
      if (b != null) {
        if (b instanceof MemoryBlock m) {
          m.verify();
        }
        open.add(b);
        (b.remote() ? counters.remoteBlocks : counters.localBlocks).increment();
        (b.remote() ? counters.remoteBytes : counters.localBytes).add(b.size());
        return b;
      }
      if (fetcher == null || fetcher.outstanding() == 0) {
        return null;
      }
      pump();
    }
  }

  /** Waits for one READ result and puts what it completes where it belongs. */
  private void pump() throws BlockFetchException, InterruptedException {
    long t0 = System.nanoTime();
    SegmentFetcher.Result r;
    try {
      while ((r = fetcher.take(100, TimeUnit.MILLISECONDS)) == null) {
        onWait.run();
      }
    } finally {
      waitNanos += System.nanoTime() - t0;
    }
    Object tag = r.request().tag();
    if (r instanceof SegmentFetcher.Failed f) {
      int partition = tag instanceof MetaRead m ? m.source.first()
          : tag instanceof RunRead run ? run.partitions.get(0)
          : ((SegmentRead) tag).block.partition();
      throw failure(BlockFetchException.Kind.TRANSPORT, source(tag), partition,
          "READ failed: " + f.cause().getMessage(), f.cause());
    }
    SegmentFetcher.Fetched x = (SegmentFetcher.Fetched) r;
    if (tag instanceof MetaRead m) {
      MapOutputMetaLayout.Ranges ranges;
      try {
        ranges = parse(m.source, x.data());
      } finally {
        x.release();
      }
      plan(m.source, ranges);
    } else if (tag instanceof RunRead run) {
      run.arrived(x);
    } else {
      SegmentRead seg = (SegmentRead) tag;
      seg.block.arrived(seg.index, x);
    }
  }

  private static Source source(Object tag) {
    if (tag instanceof MetaRead m) {
      return m.source;
    }
    if (tag instanceof RunRead r) {
      return r.source;
    }
    return ((SegmentRead) tag).block.source();
  }

  /** Queues the READs of a map output's blocks, now that their offsets are known. */
  private void plan(Source s, MapOutputMetaLayout.Ranges r) {
    MapOutputDescriptor d = s.descriptor();
    int segment = options.segmentSize();
    RunRead run = null;
    for (int p : s.partitions()) {
      long start = r.startOf(p);
      long length = r.endOf(p) - start;
      if (length == 0) {
        ready.add(new MemoryBlock(s, p, List.of(), null, r.checksumOf(p), true, true));
        continue;
      }
      if (run != null && (run.to != start || run.to - run.from + length > segment)) {
        run.submit();
        run = null;
      }
      if (length > segment) {
        StreamedBlock big = new StreamedBlock(s, p, length, r.checksumOf(p));
        for (int i = 0; i < big.segments.length; i++) {
          long off = start + (long) i * segment;
          int n = (int) Math.min(segment, start + length - off);
          fetcher.add(new SegmentFetcher.Request(
              d.owner(), application, d.data(), off, n, new SegmentRead(big, i)));
        }
        continue;
      }
      if (run == null) {
        run = new RunRead(s, start);
      }
      run.add(p, start, r.endOf(p), r.checksumOf(p));
    }
    if (run != null) {
      run.submit();
    }
  }

  private BlockFetchException failure(
      BlockFetchException.Kind kind, Source s, int partition, String message, Throwable cause) {
    counters.failed(kind);
    return new BlockFetchException(kind, s, partition, message, cause);
  }

  /** Releases every block, delivered or not, and stops READing. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (fetcher != null) {
      fetcher.close();
    }
    for (Block b : ready) {
      b.release();
    }
    ready.clear();
    for (Block b : new ArrayList<>(open)) {
      b.release();
    }
    open.clear();
  }

  // ---------------------------------------------------------------------------------------------

  /** The READ of a map output's meta entries. */
  private record MetaRead(Source source) {}

  /** The READ of consecutive blocks of one map output. */
  private final class RunRead {
    final Source source;
    final long from;
    long to;
    final List<Integer> partitions = new ArrayList<>();
    final List<long[]> ranges = new ArrayList<>();
    final List<Integer> checksums = new ArrayList<>();

    RunRead(Source source, long from) {
      this.source = source;
      this.from = from;
      this.to = from;
    }

    void add(int p, long start, long end, int checksum) {
      partitions.add(p);
      ranges.add(new long[] {start, end});
      checksums.add(checksum);
      to = end;
    }

    void submit() {
      MapOutputDescriptor d = source.descriptor();
      fetcher.add(new SegmentFetcher.Request(
          d.owner(), application, d.data(), from, (int) (to - from), this));
    }

    void arrived(SegmentFetcher.Fetched x) {
      AtomicInteger refs = new AtomicInteger(partitions.size());
      Runnable release = () -> {
        if (refs.decrementAndGet() == 0) {
          x.release();
        }
      };
      for (int i = 0; i < partitions.size(); i++) {
        long[] r = ranges.get(i);
        ByteBuffer slice = x.data().slice((int) (r[0] - from), (int) (r[1] - r[0]));
        ready.add(new MemoryBlock(
            source, partitions.get(i), List.of(slice), release, checksums.get(i), true, true));
      }
    }
  }

  /** The READ of one segment of a streamed block. */
  private record SegmentRead(StreamedBlock block, int index) {}

  /** A block whose bytes are all in memory (a READ buffer, or a mapping on this host). */
  private final class MemoryBlock extends Block {
    private final List<ByteBuffer> parts;
    private final Runnable onRelease;
    private final int checksum;
    private final boolean check;
    private final AtomicBoolean released = new AtomicBoolean();

    MemoryBlock(Source s, int p, List<ByteBuffer> parts, Runnable onRelease, int checksum,
        boolean remote, boolean check) {
      super(s, p, parts.stream().mapToLong(ByteBuffer::remaining).sum(), remote);
      this.parts = parts;
      this.onRelease = onRelease;
      this.checksum = checksum;
      this.check = check;
    }

    void verify() throws BlockFetchException {
      ChecksumAlgorithm a = source().descriptor().checksum();
      if (!check || !options.verify() || a == ChecksumAlgorithm.NONE || size() == 0) {
        return;
      }
      int actual = a.of(parts);
      if (actual != checksum) {
        release();
        counters.checksumMismatches.increment();
        throw failure(BlockFetchException.Kind.CHECKSUM, source(), partition(),
            a + " of the " + size() + " bytes read is " + Integer.toHexString(actual)
                + ", published " + Integer.toHexString(checksum), null);
      }
    }

    @Override
    public InputStream stream() {
      return new PartsInputStream(parts, this::release);
    }

    @Override
    public void release() {
      if (released.compareAndSet(false, true)) {
        open.remove(this);
        if (onRelease != null) {
          onRelease.run();
        }
      }
    }
  }

  /**
   * A block larger than a segment: handed over when its first segment arrives; its stream waits
   * for later ones (pumping READ results meanwhile), returns each segment's buffer to the pool as
   * soon as it is consumed, and checks the checksum when the last byte is consumed (or, if the
   * consumer closes early, after draining the rest).
   */
  private final class StreamedBlock extends Block {
    final SegmentFetcher.Fetched[] segments;
    final int checksum;
    final Checksum running;
    int current;
    boolean delivered;
    boolean released;

    StreamedBlock(Source s, int p, long length, int checksum) {
      super(s, p, length, true);
      this.segments =
          new SegmentFetcher.Fetched[(int) ((length + options.segmentSize() - 1) / options.segmentSize())];
      this.checksum = checksum;
      ChecksumAlgorithm a = s.descriptor().checksum();
      this.running = options.verify() && a != ChecksumAlgorithm.NONE ? a.newChecksum() : null;
    }

    void arrived(int index, SegmentFetcher.Fetched x) {
      if (released) {
        x.release();
        return;
      }
      segments[index] = x;
      if (!delivered) {
        delivered = true;
        ready.add(this);
      }
    }

    /** The segment being consumed, waiting for it; null at the end of the block. */
    ByteBuffer segment() throws IOException {
      while (current < segments.length) {
        if (segments[current] == null) {
          if (closed || released) {
            throw new IOException("block fetcher closed while a block was read");
          }
          try {
            pump();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for a READ");
          }
          continue;
        }
        ByteBuffer data = segments[current].data();
        if (data.hasRemaining()) {
          return data;
        }
        if (running != null) {
          running.update(data.duplicate().flip());
        }
        segments[current].release();
        segments[current] = null;
        current++;
        if (current == segments.length) {
          verify();
        }
      }
      return null;
    }

    private void verify() throws BlockFetchException {
      if (running != null && (int) running.getValue() != checksum) {
        counters.checksumMismatches.increment();
        throw failure(BlockFetchException.Kind.CHECKSUM, source(), partition(),
            source().descriptor().checksum() + " of the " + size() + " bytes read is "
                + Integer.toHexString((int) running.getValue()) + ", published "
                + Integer.toHexString(checksum), null);
      }
    }

    @Override
    public InputStream stream() {
      return new InputStream() {
        private boolean done;

        @Override
        public int read() throws IOException {
          ByteBuffer b = segment();
          return b == null ? -1 : b.get() & 0xff;
        }

        @Override
        public int read(byte[] dst, int off, int len) throws IOException {
          if (len == 0) {
            return 0;
          }
          ByteBuffer b = segment();
          if (b == null) {
            return -1;
          }
          int n = Math.min(len, b.remaining());
          b.get(dst, off, n);
          return n;
        }

        @Override
        public void close() throws IOException {
          if (done) {
            return;
          }
          done = true;
          try {
            if (!closed && !released && running != null) {
              // the consumer may stop before the last byte (a deserializer that found its end
              // marker): the checksum still covers the whole block
              ByteBuffer b;
              while ((b = segment()) != null) {
                b.position(b.limit());
              }
            }
          } finally {
            release();
          }
        }
      };
    }

    @Override
    public void release() {
      if (released) {
        return;
      }
      released = true;
      open.remove(this);
      for (int i = 0; i < segments.length; i++) {
        if (segments[i] != null) {
          segments[i].release();
          segments[i] = null;
        }
      }
    }
  }

  /** A stream over the concatenation of buffers; releases the block when closed. */
  private static final class PartsInputStream extends InputStream {
    private final List<ByteBuffer> parts;
    private final Runnable onClose;
    private int index;
    private boolean closed;

    PartsInputStream(List<ByteBuffer> parts, Runnable onClose) {
      this.parts = new ArrayList<>(parts.size());
      for (ByteBuffer p : parts) {
        this.parts.add(p.duplicate());
      }
      this.onClose = onClose;
    }

    private ByteBuffer current() throws IOException {
      if (closed) {
        throw new IOException("stream closed");
      }
      while (index < parts.size() && !parts.get(index).hasRemaining()) {
        index++;
      }
      return index < parts.size() ? parts.get(index) : null;
    }

    @Override
    public int read() throws IOException {
      ByteBuffer b = current();
      return b == null ? -1 : b.get() & 0xff;
    }

    @Override
    public int read(byte[] dst, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      ByteBuffer b = current();
      if (b == null) {
        return -1;
      }
      int n = Math.min(len, b.remaining());
      b.get(dst, off, n);
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = 0;
      ByteBuffer b;
      while (skipped < n && (b = current()) != null) {
        int k = (int) Math.min(n - skipped, b.remaining());
        b.position(b.position() + k);
        skipped += k;
      }
      return skipped;
    }

    @Override
    public int available() throws IOException {
      ByteBuffer b = current();
      return b == null ? 0 : b.remaining();
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        onClose.run();
      }
    }
  }
}
