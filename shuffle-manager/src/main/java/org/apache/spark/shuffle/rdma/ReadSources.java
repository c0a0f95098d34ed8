/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.Owner;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.transport.PeerAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The map outputs one reduce task reads, as the map output tracker lists them, turned into the
 * block fetcher's sources: per map output its owner (from the {@link OwnerMarker} in the map
 * status's location), the reduce partitions wanted, and where Spark says it lives (for a fetch
 * failure). Decides when the task must read the stock way instead: a map output without our marker
 * (published nowhere, or migrated by Spark at decommission), or served over a transport this
 * executor does not run.
 */
final class ReadSources {
  /** Where one map output's blocks came from, as Spark names it. */
  record MapOutputLocation(BlockManagerId address, long mapId, int mapIndex) {}

  private final SparkNode node;
  private final FallbackLog fallbacks;
  private final Map<String, Owner> owners = new HashMap<>();

  ReadSources(SparkNode node, FallbackLog fallbacks) {
    this.node = node;
    this.fallbacks = fallbacks;
  }

  /** The sources of a reduce task, or null when it must read the stock way (logged, counted). */
  List<BlockSource> of(
      int shuffleId,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      String what) {
    Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> it =
        SparkEnv.get()
            .mapOutputTracker()
            .getMapSizesByExecutorId(
                shuffleId, startMapIndex, endMapIndex, startPartition, endPartition);
    List<BlockSource> out = new ArrayList<>();
    String shuffle = Integer.toString(shuffleId);
    while (it.hasNext()) {
      Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> e = it.next();
      BlockManagerId address = e._1();
      Owner owner = owner(address, what);
      if (owner == null) {
        return null;
      }
      Map<Long, List<Integer>> reduceIds = new LinkedHashMap<>();
      Map<Long, Integer> mapIndexes = new HashMap<>();
      for (Tuple3<BlockId, Object, Object> b : CollectionConverters.asJava(e._2())) {
        if (!(b._1() instanceof ShuffleBlockId id)) {
          throw new IllegalStateException("block " + b._1() + " is not a shuffle block");
        }
        reduceIds.computeIfAbsent(id.mapId(), k -> new ArrayList<>()).add(id.reduceId());
        mapIndexes.put(id.mapId(), (Integer) b._3());
      }
      for (Map.Entry<Long, List<Integer>> m : reduceIds.entrySet()) {
        int[] wanted =
            m.getValue().stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
        out.add(
            new BlockSource(
                owner,
                shuffle,
                Long.toString(m.getKey()),
                wanted,
                new MapOutputLocation(address, m.getKey(), mapIndexes.get(m.getKey()))));
      }
    }
    return out;
  }

  /**
   * The owner {@code m} names, seen from the process whose transport runs at {@code self}: this
   * very process only by its transport's own address (with the node service, the markers of this
   * executor's outputs name the NodeManager's service, which is another process on this host).
   */
  static Owner ownerOf(OwnerMarker m, PeerAddress self) {
    return new Owner(m.address(), m.address().host().equals(self.host()), m.address().equals(self));
  }

  /**
   * Whether a reader can READ the map outputs a location's {@code topologyInfo} marks: the owner,
   * or why not (the cause the stock fallback is logged and counted under, and the detail).
   */
  record Verdict(Owner owner, FallbackLog.Cause cause, String why) {}

  /** The verdict on {@code text} for a reader whose own marker is {@code me}, at {@code self}. */
  static Verdict judge(String text, String executorId, OwnerMarker me, PeerAddress self) {
    if (!OwnerMarker.isOurs(text)) {
      return new Verdict(
          null,
          FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT,
          "map outputs of executor "
              + executorId
              + " carry no rdma-shuffle marker (not published, or migrated by Spark)");
    }
    OwnerMarker m;
    try {
      m = OwnerMarker.parse(text);
    } catch (IllegalArgumentException bad) {
      return new Verdict(
          null,
          FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT,
          "executor " + executorId + ": " + bad.getMessage());
    }
    if (m.transport() != me.transport()) {
      return new Verdict(
          null,
          FallbackLog.Cause.OTHER_TRANSPORT,
          "executor "
              + executorId
              + " serves over "
              + m.transport()
              + ", this executor runs "
              + me.transport());
    }
    return new Verdict(ownerOf(m, self), null, null);
  }

  /** The owner a map status's location names, or null when this task can't READ from it. */
  private Owner owner(BlockManagerId address, String what) {
    String text = address.topologyInfo().isDefined() ? address.topologyInfo().get() : null;
    Owner known = text == null ? null : owners.get(text);
    if (known != null) {
      return known;
    }
    Verdict v =
        judge(text, address.executorId(), node.marker(), node.runtime().transport().localAddress());
    if (v.owner() == null) {
      fallbacks.record(v.cause(), what, v.why());
      return null;
    }
    owners.put(text, v.owner());
    return v.owner();
  }
}
