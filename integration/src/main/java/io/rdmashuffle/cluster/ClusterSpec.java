/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.cluster.net.AddressPlan;
import io.rdmashuffle.cluster.net.Rate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What cluster to start: how many hosts, their link rate, which engines run on them and how big
 * their daemons' resources are. Built with {@link #builder}; immutable.
 *
 * @param name the cluster's work folder under the work root (one per test class, {@code cli})
 * @param hosts number of hosts, rs-h1 .. rs-hN
 * @param subnet first three octets of the /24 in 198.18.0.0/15
 * @param rate every host link's rate, or null for none
 * @param spark a Spark standalone Master on rs-h1 and a Worker on every host
 * @param yarn a ResourceManager and the job history server on rs-h1, a NodeManager on every host
 * @param ourShuffleService rdma-shuffle's service as {@code mapreduce_shuffle} on every
 *     NodeManager, installed as the README tells operators; false: the stock ShuffleHandler
 * @param yarnSite extra yarn-site.xml properties (win over the harness's)
 * @param mapredSite extra mapred-site.xml properties (win over the harness's)
 * @param workerCores cores each Spark Worker offers
 * @param workerMemory memory each Spark Worker offers ({@code 1g})
 * @param nodeManagerMemoryMb memory each NodeManager offers to containers
 * @param nodeManagerVcores vcores each NodeManager offers
 * @param nodeManagerHeap each NodeManager's heap ({@code -Xmx}), where the auxiliary services
 *     serving map outputs live
 * @param multiUser YARN as operators run it ({@link io.rdmashuffle.cluster.yarn.MultiUser}):
 *     NodeManagers as the user {@code yarn}, containers as their job's user through Hadoop's
 *     LinuxContainerExecutor
 */
public record ClusterSpec(
    String name,
    int hosts,
    String subnet,
    Rate rate,
    boolean spark,
    boolean yarn,
    boolean ourShuffleService,
    Map<String, String> yarnSite,
    Map<String, String> mapredSite,
    int workerCores,
    String workerMemory,
    int nodeManagerMemoryMb,
    int nodeManagerVcores,
    String nodeManagerHeap,
    boolean multiUser) {

  public ClusterSpec {
    if (!name.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("name=" + name + ": letters, digits, . _ - only");
    }
    new AddressPlan(subnet, hosts); // validates both
    yarnSite = Map.copyOf(yarnSite);
    mapredSite = Map.copyOf(mapredSite);
  }

  public AddressPlan plan() {
    return new AddressPlan(subnet, hosts);
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Defaults: 3 hosts, no rate limit, no engine, our shuffle service, small daemons. */
  public static final class Builder {
    private final String name;
    private int hosts = 3;
    private String subnet = AddressPlan.DEFAULT_PREFIX;
    private Rate rate;
    private boolean spark;
    private boolean yarn;
    private boolean ourShuffleService = true;
    private final Map<String, String> yarnSite = new LinkedHashMap<>();
    private final Map<String, String> mapredSite = new LinkedHashMap<>();
    private int workerCores = DEFAULT_WORKER_CORES;
    private String workerMemory = DEFAULT_WORKER_MEMORY;
    private int nodeManagerMemoryMb = 1536;
    private int nodeManagerVcores = 4;
    private String nodeManagerHeap = "192m";
    private boolean multiUser;

    /** What each Spark Worker offers unless told: two cores, 1 GiB. */
    public static final int DEFAULT_WORKER_CORES = 2;

    public static final String DEFAULT_WORKER_MEMORY = "1g";

    private Builder(String name) {
      this.name = name;
    }

    public Builder hosts(int n) {
      hosts = n;
      return this;
    }

    public Builder subnet(String prefix) {
      subnet = prefix;
      return this;
    }

    public Builder rate(Rate r) {
      rate = r;
      return this;
    }

    public Builder spark() {
      spark = true;
      return this;
    }

    public Builder yarn() {
      yarn = true;
      return this;
    }

    public Builder stockShuffleService() {
      ourShuffleService = false;
      return this;
    }

    public Builder yarnSite(String key, String value) {
      yarnSite.put(key, value);
      return this;
    }

    public Builder mapredSite(String key, String value) {
      mapredSite.put(key, value);
      return this;
    }

    public Builder workers(int cores, String memory) {
      workerCores = cores;
      workerMemory = memory;
      return this;
    }

    public Builder nodeManagers(int memoryMb, int vcores) {
      nodeManagerMemoryMb = memoryMb;
      nodeManagerVcores = vcores;
      return this;
    }

    /**
     * Each NodeManager's heap: small by default (a few hosts on one machine); a service serving a
     * wide job needs what a real NodeManager has (Hadoop's default is a quarter of the host).
     */
    public Builder nodeManagerHeap(String heap) {
      nodeManagerHeap = heap;
      return this;
    }

    /** NodeManagers as {@code yarn}, containers as their job's user (LinuxContainerExecutor). */
    public Builder multiUser() {
      multiUser = true;
      return this;
    }

    public ClusterSpec build() {
      return new ClusterSpec(
          name,
          hosts,
          subnet,
          rate,
          spark,
          yarn,
          ourShuffleService,
          yarnSite,
          mapredSite,
          workerCores,
          workerMemory,
          nodeManagerMemoryMb,
          nodeManagerVcores,
          nodeManagerHeap,
          multiUser);
    }
  }
}
