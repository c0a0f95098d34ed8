package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.mapoutput.BlockFetchException;
import io.rdmashuffle.mapoutput.BlockFetcher;
import io.rdmashuffle.mapoutput.MapOutputDescriptor;
import io.rdmashuffle.mapoutput.ShuffleRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
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
import org.apache.spark.storage.BlockManagerId;
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
 * Reads a reduce task's blocks with a {@link BlockFetcher} (one-sided READs into pooled
 * registered buffers; same-host blocks from their mappings) and then takes Spark's own path:
 * decryption and decompression by the serializer manager, deserialization, aggregation and
 * sorting ({@code ExternalSorter}), with the task's read metrics filled as Spark's reader fills
 * them. A block that can't be read becomes a {@code FetchFailedException} naming its block
 * manager, shuffle, map id, map index and reduce id, so Spark re-runs the map that wrote it.
 */
final class RdmaShuffleReader<K, C> implements ShuffleReader<K, C> {
  /** Where one map output's blocks came from, as Spark names it. */
  record MapOutputLocation(BlockManagerId address, long mapId, int mapIndex) {}

  private final BaseShuffleHandle<K, ?, C> handle;
  private final List<BlockFetcher.Source> sources;
  private final TaskContext context;
  private final ShuffleReadMetricsReporter metrics;
  private final ShuffleRuntime runtime;
  private final BlockFetcher.Options options;

  RdmaShuffleReader(
      BaseShuffleHandle<K, ?, C> handle,
      List<BlockFetcher.Source> sources,
      TaskContext context,
      ShuffleReadMetricsReporter metrics,
      ShuffleRuntime runtime,
      BlockFetcher.Options options) {
    this.handle = handle;
    this.sources = sources;
    this.context = context;
    this.metrics = metrics;
    this.runtime = runtime;
    this.options = options;
  }

  /** A fetcher source for the blocks of one map output listed by the map output tracker. */
  static BlockFetcher.Source source(
      BlockManagerId address, MapOutputDescriptor d, int mapIndex, int[] reduceIds) {
    return new BlockFetcher.Source(d, reduceIds, new MapOutputLocation(address, d.mapId(), mapIndex));
  }

  @Override
  public Iterator<Product2<K, C>> read() {
    BlockFetcher fetcher = runtime.newFetcher(options, context::killTaskIfInterrupted);
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> fetcher.close());
    try {
      for (BlockFetcher.Source s : sources) {
        fetcher.add(s);
      }
    } catch (BlockFetchException e) {
      throw sneaky(fetchFailed(e));
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
        sortAggregator = Option.apply(new Aggregator(identity, a.mergeCombiners(),
            a.mergeCombiners()));
      } else {
        sortAggregator = aggregator;
      }
      ExternalSorter<K, Object, C> sorter =
          SparkShim.newSorter(context, sortAggregator, dep.keyOrdering().get(), dep.serializer());
      result = sorter.insertAllAndUpdateMetrics((Iterator) records);
    } else if (aggregator.isDefined()) {
      Iterator combined = dep.mapSideCombine()
          ? aggregator.get().combineCombinersByKey((Iterator) records, context)
          : aggregator.get().combineValuesByKey((Iterator) records, context);
      result = combined;
    } else {
      return (Iterator) records;
    }
    // the sorter or aggregator consumed the interruptible iterator; keep the task killable
    return new InterruptibleIterator<>(context, result);
  }

  /** A fetch failure Spark understands, for the block that could not be read. */
  private FetchFailedException fetchFailed(BlockFetchException e) {
    MapOutputLocation where = (MapOutputLocation) e.source().tag();
    return new FetchFailedException(where.address(), handle.shuffleId(), where.mapId(),
        where.mapIndex(), e.partition(), e.getMessage(), e);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  /**
   * The records of every block, one block after the other, counting Spark's read metrics as
   * blocks and records go by; merges the task's read metrics when the last record was read.
   */
  private final class Records extends AbstractIterator<Tuple2<Object, Object>> {
    private final BlockFetcher fetcher;
    private final SerializerInstance serializer;
    private final SerializerManager serializerManager;
    private final int shuffleId;
    private Iterator<Tuple2<Object, Object>> current;
    private long reportedWaitMillis;
    private boolean finished;

    Records(BlockFetcher fetcher, SerializerInstance serializer,
        SerializerManager serializerManager, int shuffleId) {
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
        BlockFetcher.Block b = nextBlock();
        if (b == null) {
          finished = true;
          context.taskMetrics().mergeShuffleReadMetrics();
          return false;
        }
        ShuffleBlockId id = new ShuffleBlockId(shuffleId,
            ((MapOutputLocation) b.source().tag()).mapId(), b.partition());
        InputStream in = serializerManager.wrapStream(id, new FailureTranslating(b.stream()));
        current = serializer.deserializeStream(in).asKeyValueIterator();
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

    private BlockFetcher.Block nextBlock() {
      BlockFetcher.Block b;
      try {
        b = fetcher.next();
      } catch (BlockFetchException e) {
        throw sneaky(fetchFailed(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        context.killTaskIfInterrupted();
        throw sneaky(e);
      } finally {
        long waited = TimeUnit.NANOSECONDS.toMillis(fetcher.waitNanos());
        metrics.incFetchWaitTime(waited - reportedWaitMillis);
        reportedWaitMillis = waited;
      }
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

  /** Turns our fetch failures inside a block's stream into Spark's. */
  private final class FailureTranslating extends InputStream {
    private final InputStream in;

    FailureTranslating(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      try {
        return in.read();
      } catch (BlockFetchException e) {
        throw sneaky(fetchFailed(e));
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return in.read(b, off, len);
      } catch (BlockFetchException e) {
        throw sneaky(fetchFailed(e));
      }
    }

    @Override
    public long skip(long n) throws IOException {
      try {
        return in.skip(n);
      } catch (BlockFetchException e) {
        throw sneaky(fetchFailed(e));
      }
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() throws IOException {
      try {
        in.close();
      } catch (BlockFetchException e) {
        throw sneaky(fetchFailed(e));
      }
    }
  }

  /** The blocks of a map output as the tracker lists them: reduce ids, ascending. */
  static int[] reduceIds(List<ShuffleBlockId> blocks) {
    List<Integer> ids = new ArrayList<>(blocks.size());
    for (ShuffleBlockId b : blocks) {
      ids.add(b.reduceId());
    }
    return ids.stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
  }
}
