/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import io.rdmashuffle.node.NodeRuntime;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Where a NodeManager service (MapReduce's, Spark's) listens and what it advertises, when the
 * {@code host} setting leaves it open: it advertises this host's name, as YARN names the node, and
 * listens on every address of the host, so readers on other hosts reach it whatever the name
 * resolves to here (Debian's {@code 127.0.1.1 <host name>} line in {@code /etc/hosts} would make a
 * service bound to its own name listen on loopback only). A name that resolves to loopback while
 * the cluster's ResourceManager is elsewhere is warned about: readers on other hosts resolving it
 * the same way would connect to themselves.
 */
public final class NodeServiceAddress {
  private NodeServiceAddress() {}

  /**
   * {@code context} set up for a NodeManager service advertising {@code host} and listening on
   * every address (unless the {@code host} setting names one).
   */
  public static NodeRuntime.Context serving(NodeRuntime.Context context, String host) {
    return context.defaultHost(host).bindAllAddresses();
  }

  /**
   * The warning to log when {@code advertised} resolves to a loopback address on a cluster whose
   * ResourceManager ({@code resourceManager}, {@code yarn.resourcemanager.hostname}) is another
   * host; null when there is nothing to warn about.
   */
  public static String loopbackWarning(String advertised, String resourceManager) {
    if (!loopback(advertised) || resourceManager == null || resourceManager.isEmpty()) {
      return null;
    }
    if (loopback(resourceManager) || anyLocal(resourceManager)) {
      return null;
    }
    return "rdma-shuffle: this NodeManager's services advertise "
        + advertised
        + ", which resolves to a loopback address here ("
        + addressOf(advertised)
        + "), while the ResourceManager is on another host ("
        + resourceManager
        + "): readers on other hosts may not reach them; fix the host's name resolution"
        + " (a 127.0.1.1 line in /etc/hosts) or set the service's host setting";
  }

  private static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean anyLocal(String host) {
    try {
      return InetAddress.getByName(host).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String addressOf(String host) {
    try {
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      return "?";
    }
  }
}
