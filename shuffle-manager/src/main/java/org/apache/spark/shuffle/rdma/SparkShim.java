/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import org.apache.spark.Aggregator;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.math.Ordering;

/**
 * Every call into Spark whose shape differs between the Spark versions this one jar runs on (3.5,
 * 4.0, 4.1, 4.2; Scala 2.13). The plugin is compiled against 4.1.3; each alternative here names the
 * versions that need it, and is chosen once, when the class loads, by what the running Spark has.
 * Everything else the plugin calls is identical from 3.5.9 to 4.2.0.
 *
 * <p>Deliberately not here, because they are the same everywhere: {@code MapStatus.updateLocation}
 * (the writer changes the status's location instead of calling {@code MapStatus.apply}, whose
 * signature changed in 4.1), {@code MapOutputTracker.getMapSizesByExecutorId} (5 arguments), {@code
 * FetchFailedException}, {@code SortShuffleManager(SparkConf)}, {@code
 * IndexShuffleBlockResolver.getDataFile/getChecksumFile}, {@code BlockManagerId.apply}, the read
 * and write metrics reporters.
 */
final class SparkShim {
  private SparkShim() {}

  /**
   * {@code ExternalSorter}'s constructor.
   *
   * <ul>
   *   <li>3.5, 4.0: {@code (context, aggregator, partitioner, ordering, serializer)}
   *   <li>4.1, 4.2: {@code (context, aggregator, partitioner, ordering, serializer,
   *       rowBasedChecksums: Array[RowBasedChecksum])}; the class {@code RowBasedChecksum} does not
   *       exist before 4.1, so it is only named through the constructor's parameter type.
   * </ul>
   */
  private static final Constructor<?> SORTER = sorterConstructor();

  private static Constructor<?> sorterConstructor() {
    Constructor<?> five = null;
    Constructor<?> six = null;
    for (Constructor<?> c : ExternalSorter.class.getConstructors()) {
      Class<?>[] p = c.getParameterTypes();
      if (p.length == 5 && p[0] == TaskContext.class) {
        five = c;
      } else if (p.length == 6 && p[0] == TaskContext.class && p[5].isArray()) {
        six = c;
      }
    }
    if (six != null) {
      return six; // 4.1, 4.2
    }
    if (five != null) {
      return five; // 3.5, 4.0
    }
    throw new IllegalStateException("this Spark's ExternalSorter has no known constructor");
  }

  /** A sorter for a reduce task's records: no partitioner, no row-based checksums. */
  @SuppressWarnings("unchecked")
  static <K, V, C> ExternalSorter<K, V, C> newSorter(
      TaskContext context,
      Option<Aggregator<K, V, C>> aggregator,
      Ordering<K> ordering,
      Serializer serializer) {
    Object[] args =
        SORTER.getParameterCount() == 6
            ? new Object[] {
              context,
              aggregator,
              Option.empty(),
              Option.apply(ordering),
              serializer,
              Array.newInstance(SORTER.getParameterTypes()[5].getComponentType(), 0)
            }
            : new Object[] {
              context, aggregator, Option.empty(), Option.apply(ordering), serializer
            };
    try {
      return (ExternalSorter<K, V, C>) SORTER.newInstance(args);
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("ExternalSorter failed to start", t);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("ExternalSorter can't be created", e);
    }
  }
}
