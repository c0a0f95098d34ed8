/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.fetch.Block;
import io.rdmashuffle.fetch.BlockFetchException;
import io.rdmashuffle.fetch.BlockFetcher;
import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.FetchOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.Aggregator;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.serializer.SerializerManager;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Function1;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Reads a reduce task's blocks with a {@link BlockFetcher} (one-sided READs into pooled registered
 * buffers; blocks on this host from their files) and then takes Spark's own path: decryption and
 * decompression by the serializer manager, deserialization, aggregation and sorting ({@code
 * ExternalSorter}), with the task's read metrics filled as Spark's reader fills them. Where Spark
 * would fetch a map output's contiguous blocks in a batch, the blocks of it that follow each other
 * and are ready together are read as one stream, as Spark reads a batch.
 *
 * <p>Failures land on the party at fault. A block that can't be read because of its map output or
 * its owner (lost, unreachable after every retry, bad bytes: a checksum mismatch, or any {@code
 * IOException} while decompressing or reading its stream, as Spark's own reader treats them)
 * becomes a {@code FetchFailedException} naming its block manager, shuffle, map id, map index and
 * reduce id, so Spark re-runs that map. This task's own shortage (no READ buffer within the wait)
 * fails the task alone and blames no executor.
 */
final class RdmaShuffleReader<K, C> implements ShuffleReader<K, C> {
  private final BaseShuffleHandle<K, ?, C> handle;
  private final List<BlockSource> sources;
  private final TaskContext context;
  private final ShuffleReadMetricsReporter metrics;
  private final SparkNode node;
  private final FetchOptions options;

  /** Whether each run of contiguous blocks of a map output is read as one stream. */
  private final boolean runsAsOneStream;

  RdmaShuffleReader(
      BaseShuffleHandle<K, ?, C> handle,
      List<BlockSource> sources,
      TaskContext context,
      ShuffleReadMetricsReporter metrics,
      SparkNode node,
      FetchOptions options,
      boolean runsAsOneStream) {
    this.handle = handle;
    this.sources = sources;
    this.context = context;
    this.metrics = metrics;
    this.node = node;
    this.options = options;
    this.runsAsOneStream = runsAsOneStream;
  }

  @Override
  public Iterator<Product2<K, C>> read() {
    BlockFetcher fetcher = node.newFetcher(options, context::killTaskIfInterrupted);
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> fetcher.close());
    try {
      for (BlockSource s : sources) {
        fetcher.add(s);
      }
      // remote locates go out now, before the records' consumer is even set up
      fetcher.start();
    } catch (BlockFetchException e) {
      throw sneaky(failure(e));
    }
    ShuffleDependency<K, ?, C> dep = handle.dependency();
    SerializerInstance serializer = dep.serializer().newInstance();
    SerializerManager serializerManager = SparkEnv.get().serializerManager();
    Iterator<Tuple2<Object, Object>> records =
        new Records(fetcher, serializer, serializerManager, dep.shuffleId());
    return aggregateAndSort(dep, new InterruptibleIterator<>(context, records));
  }

  /** What Spark's BlockStoreShuffleReader does with the records (4.x structure). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Iterator<Product2<K, C>> aggregateAndSort(
      ShuffleDependency<K, ?, C> dep, InterruptibleIterator<Tuple2<Object, Object>> records) {
    Option<Aggregator<K, Object, C>> aggregator = (Option) dep.aggregator();
    Iterator<Product2<K, C>> result;
    if (dep.keyOrdering().isDefined()) {
      Option<Aggregator<K, Object, C>> sortAggregator;
      if (aggregator.isDefined() && dep.mapSideCombine()) {
        // the records are combiners already: merge them, don't combine them again
        Aggregator<K, Object, C> a = aggregator.get();
        Function1<Object, Object> identity = x -> x;
        sortAggregator =
            Option.apply(new Aggregator(identity, a.mergeCombiners(), a.mergeCombiners()));
      } else {
        sortAggregator = aggregator;
      }
      ExternalSorter<K, Object, C> sorter =
          SparkShim.newSorter(context, sortAggregator, dep.keyOrdering().get(), dep.serializer());
      result = sorter.insertAllAndUpdateMetrics((Iterator) records);
    } else if (aggregator.isDefined()) {
      Iterator combined =
          dep.mapSideCombine()
              ? aggregator.get().combineCombinersByKey((Iterator) records, context)
              : aggregator.get().combineValuesByKey((Iterator) records, context);
      result = combined;
    } else {
      return (Iterator) records;
    }
    // the sorter or aggregator consumed the interruptible iterator; keep the task killable
    return new InterruptibleIterator<>(context, result);
  }

  /**
   * What Spark should see for a block that can't be read: a fetch failure of its map output when
   * the map output or its owner is at fault, else the task's own failure.
   */
  private Exception failure(BlockFetchException e) {
    return e.kind().blamesMapOutput() ? fetchFailed(e.source(), e.partition(), e) : e;
  }

  /** A fetch failure Spark understands, for a block of {@code source}. */
  private FetchFailedException fetchFailed(BlockSource source, int partition, Throwable cause) {
    ReadSources.MapOutputLocation where = (ReadSources.MapOutputLocation) source.tag();
    return new FetchFailedException(
        where.address(),
        handle.shuffleId(),
        where.mapId(),
        where.mapIndex(),
        partition,
        cause.getMessage(),
        cause);
  }

  /**
   * After Spark's decoder failed on a block ({@code failure}): closes its stream, which reads the
   * rest of the block into its checksum, as Spark's reader consumes a corrupt block to diagnose it
   * (SPARK-36206). Bad bytes the decoder met before the checksum did come back as the checksum's
   * failure, with its diagnosed cause ("... is corrupted due to DISK_ISSUE"); null when the
   * checksum passes or the block has none (the decoder's failure stands).
   */
  private static BlockFetchException checksumOfTheRest(InputStream stream, Exception failure) {
    try {
      stream.close();
      return null;
    } catch (BlockFetchException f) {
      if (f.kind() == BlockFetchException.Kind.CHECKSUM) {
        f.addSuppressed(failure);
        return f;
      }
      return null;
    } catch (IOException | RuntimeException ignored) {
      return null; // the decoder's failure is the one to report
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  /**
   * The records of every block, one block after the other, counting Spark's read metrics as blocks
   * and records go by; merges the task's read metrics when the last record was read.
   */
  private final class Records extends AbstractIterator<Tuple2<Object, Object>> {
    private final BlockFetcher fetcher;
    private final SerializerInstance serializer;
    private final SerializerManager serializerManager;
    private final int shuffleId;
    private Iterator<Tuple2<Object, Object>> current;
    private long reportedWaitMillis;
    private boolean finished;

    Records(
        BlockFetcher fetcher,
        SerializerInstance serializer,
        SerializerManager serializerManager,
        int shuffleId) {
      this.fetcher = fetcher;
      this.serializer = serializer;
      this.serializerManager = serializerManager;
      this.shuffleId = shuffleId;
    }

    @Override
    public boolean hasNext() {
      while (current == null || !current.hasNext()) {
        if (finished) {
          return false;
        }
        Block b = nextBlock();
        if (b == null) {
          finished = true;
          context.taskMetrics().mergeShuffleReadMetrics();
          return false;
        }
        ShuffleBlockId id =
            new ShuffleBlockId(
                shuffleId,
                ((ReadSources.MapOutputLocation) b.source().tag()).mapId(),
                b.partition());
        InputStream raw = runsAsOneStream ? runFrom(b) : b.stream();
        InputStream in;
        try {
          in = serializerManager.wrapStream(id, raw);
        } catch (Exception e) { // Scala throws IOException undeclared: bad compression header
          if (e instanceof BlockFetchException f) {
            b.release();
            throw sneaky(failure(f));
          }
          if (e instanceof RuntimeException r) {
            b.release();
            throw r;
          }
          BlockFetchException diagnosed = checksumOfTheRest(raw, e);
          b.release();
          if (diagnosed != null) {
            throw sneaky(failure(diagnosed));
          }
          node.counters().streamFailed();
          throw sneaky(fetchFailed(b.source(), b.partition(), e));
        }
        current = serializer.deserializeStream(new FailureTranslating(in, b)).asKeyValueIterator();
      }
      return true;
    }

    @Override
    public Tuple2<Object, Object> next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException("no more records");
      }
      metrics.incRecordsRead(1);
      return current.next();
    }

    /**
     * {@code first} and the blocks of its map output that follow it and are ready now, as one
     * stream: what Spark's reader gets for a batch of contiguous blocks. Each block's stream is
     * opened when the one before it ends, and closed (checked against its checksum, released) when
     * its own end is passed.
     */
    private InputStream runFrom(Block first) {
      List<Block> run = new ArrayList<>();
      run.add(first);
      Block next;
      while ((next = following(run.get(run.size() - 1))) != null) {
        run.add(next);
      }
      if (run.size() == 1) {
        return first.stream();
      }
      return new SequenceInputStream(
          new Enumeration<InputStream>() {
            private int i;

            @Override
            public boolean hasMoreElements() {
              return i < run.size();
            }

            @Override
            public InputStream nextElement() {
              return run.get(i++).stream();
            }
          });
    }

    private Block following(Block previous) {
      try {
        return counted(fetcher.nextFollowing(previous));
      } catch (BlockFetchException e) {
        throw sneaky(failure(e));
      }
    }

    private Block nextBlock() {
      Block b;
      try {
        b = fetcher.next();
      } catch (BlockFetchException e) {
        throw sneaky(failure(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        context.killTaskIfInterrupted();
        throw sneaky(e);
      } finally {
        long waited = TimeUnit.NANOSECONDS.toMillis(fetcher.waitNanos());
        metrics.incFetchWaitTime(waited - reportedWaitMillis);
        reportedWaitMillis = waited;
      }
      return counted(b);
    }

    /** Counts a block handed over in Spark's read metrics. */
    private Block counted(Block b) {
      if (b != null) {
        if (b.remote()) {
          metrics.incRemoteBlocksFetched(1);
          metrics.incRemoteBytesRead(b.size());
        } else {
          metrics.incLocalBlocksFetched(1);
          metrics.incLocalBytesRead(b.size());
        }
      }
      return b;
    }
  }

  /**
   * Reads a block's decompressed and decrypted bytes, turning every {@code IOException} (bad bytes
   * found by the decompressor, a checksum mismatch, a READ that failed mid-stream) into a fetch
   * failure of the block's map output, as Spark's own reader does; a failure of this task's own (a
   * shortage) stays the task's.
   */
  private final class FailureTranslating extends InputStream {
    private final InputStream in;
    private final Block block;

    FailureTranslating(InputStream in, Block block) {
      this.in = in;
      this.block = block;
    }

    private RuntimeException translated(IOException e) {
      if (e instanceof BlockFetchException f) {
        return sneaky(failure(f));
      }
      BlockFetchException diagnosed = checksumOfTheRest(in, e);
      if (diagnosed != null) {
        return sneaky(failure(diagnosed));
      }
      node.counters().streamFailed();
      return sneaky(fetchFailed(block.source(), block.partition(), e));
    }

    @Override
    public int read() {
      try {
        return in.read();
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) {
      try {
        return in.read(b, off, len);
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public long skip(long n) {
      try {
        return in.skip(n);
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        throw translated(e);
      } finally {
        block.release();
      }
    }
  }
}
