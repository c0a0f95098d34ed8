/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import io.rdmashuffle.cluster.ClusterSite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The cluster's {@code HADOOP_HOME}, laid out as a distribution's: {@code share/hadoop/common/lib}
 * holds every Hadoop jar (a link to the jars the build copied from Maven), and, when the cluster
 * runs our service, rdma-shuffle's Hadoop plugin jar is put where the README tells operators to put
 * it: {@code share/hadoop/yarn/lib/} (the NodeManager's class path) and {@code
 * share/hadoop/mapreduce/lib/} (part of the default {@code mapreduce.application.classpath}, so
 * reduce tasks have it).
 */
final class HadoopHome {
  private HadoopHome() {}

  static Path assemble(ClusterSite c) {
    Path home = c.work().resolve("hadoop");
    Path share = home.resolve("share/hadoop");
    try {
      Files.createDirectories(share.resolve("common"));
      Files.createSymbolicLink(share.resolve("common/lib"), c.paths().hadoopJars());
      for (String lib : new String[] {"yarn/lib", "mapreduce/lib", "hdfs/lib"}) {
        Files.createDirectories(share.resolve(lib));
      }
      if (c.spec().ourShuffleService()) {
        Path jar = c.paths().hadoopPluginJar();
        Files.copy(
            jar,
            share.resolve("yarn/lib").resolve(jar.getFileName()),
            StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
            jar,
            share.resolve("mapreduce/lib").resolve(jar.getFileName()),
            StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lay out " + home, e);
    }
    return home;
  }

  /** A daemon's class path: its configuration, then what {@code bin/yarn} puts there. */
  static String daemonClassPath(Path home, Path conf) {
    Path share = home.resolve("share/hadoop");
    return conf + ":" + share.resolve("common/lib") + "/*:" + share.resolve("yarn/lib") + "/*";
  }
}
