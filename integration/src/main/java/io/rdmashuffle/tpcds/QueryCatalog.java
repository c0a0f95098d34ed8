/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TPC-DS queries as Spark ships them in the spark-sql test-jar (carried in the runner's jar):
 * {@code tpcds/} (103 queries, q1 to q99 with 14a/b, 23a/b, 24a/b, 39a/b) and {@code tpcds-v2.7.0/}
 * (the 33 queries TPC-DS 2.7 added or changed).
 */
public final class QueryCatalog {
  /** Spark's {@code tpcds/} folder: the default set. */
  public static final String TPCDS = "tpcds";

  /** Spark's {@code tpcds-v2.7.0/} folder. */
  public static final String TPCDS_V27 = "tpcds-v2.7.0";

  static final String V27_SUFFIX = "-v2.7";

  /**
   * One query.
   *
   * @param id {@code q14a}, or {@code q14a-v2.7} for the 2.7 set
   * @param set the folder it comes from
   * @param resource its class path resource
   */
  public record Query(String id, String set, String resource) {
    public String sql() {
      try (InputStream in = QueryCatalog.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("query " + resource + " is not on the class path");
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private QueryCatalog() {}

  /** Every query of a set, in natural order (q1, q2, ..., q14a, q14b, ..., q99). */
  public static List<Query> set(String set) {
    if (!TPCDS.equals(set) && !TPCDS_V27.equals(set)) {
      throw new IllegalArgumentException(
          "query set=" + set + ": expected " + TPCDS + " or " + TPCDS_V27);
    }
    List<Query> out = new ArrayList<>();
    for (String name : resourceNames(set)) {
      if (name.endsWith(".sql")) {
        String base = name.substring(0, name.length() - 4);
        String id = TPCDS.equals(set) ? base : base + V27_SUFFIX;
        out.add(new Query(id, set, set + "/" + name));
      }
    }
    out.sort(Comparator.comparing(Query::id, QueryCatalog::naturalOrder));
    if (out.isEmpty()) {
      throw new IllegalStateException("no queries in " + set + "/ on the class path");
    }
    return out;
  }

  /**
   * The queries a run asks for.
   *
   * @param sets comma-separated sets, e.g. {@code tpcds} or {@code tpcds,tpcds-v2.7.0}
   * @param ids {@code all}, or comma-separated ids from those sets ({@code q1,q14a,q14a-v2.7})
   */
  public static List<Query> select(String sets, String ids) {
    Map<String, Query> all = new LinkedHashMap<>();
    for (String set : sets.split(",")) {
      for (Query q : set(set.trim())) {
        all.put(q.id(), q);
      }
    }
    if (ids == null || ids.isBlank() || "all".equals(ids)) {
      return List.copyOf(all.values());
    }
    List<Query> out = new ArrayList<>();
    for (String id : ids.split(",")) {
      String key = id.trim();
      if (key.isEmpty()) {
        continue;
      }
      Query q = all.get(key);
      if (q == null) {
        q = all.get(key + V27_SUFFIX);
      }
      if (q == null) {
        throw new IllegalArgumentException("query=" + key + " is not in " + sets);
      }
      out.add(q);
    }
    return out;
  }

  private static final Pattern NAME = Pattern.compile("q(\\d+)(.*)");

  static int naturalOrder(String a, String b) {
    Matcher ma = NAME.matcher(a);
    Matcher mb = NAME.matcher(b);
    if (ma.matches() && mb.matches()) {
      int c = Integer.compare(Integer.parseInt(ma.group(1)), Integer.parseInt(mb.group(1)));
      return c != 0 ? c : ma.group(2).compareTo(mb.group(2));
    }
    return a.compareTo(b);
  }

  private static List<String> resourceNames(String folder) {
    URL url = QueryCatalog.class.getClassLoader().getResource(folder + "/");
    if (url == null) {
      throw new IllegalStateException(
          folder
              + "/ is not on the class path (it comes from the "
              + "spark-sql test-jar, inside the runner's jar)");
    }
    List<String> names = new ArrayList<>();
    try {
      if ("jar".equals(url.getProtocol())) {
        JarURLConnection c = (JarURLConnection) url.openConnection();
        c.setUseCaches(false);
        try (JarFile jar = c.getJarFile()) {
          String prefix = folder + "/";
          for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            String n = e.nextElement().getName();
            if (n.startsWith(prefix)
                && n.length() > prefix.length()
                && n.indexOf('/', prefix.length()) < 0) {
              names.add(n.substring(prefix.length()));
            }
          }
        }
      } else {
        try (var s = Files.list(Paths.get(url.toURI()))) {
          s.map(Path::getFileName).map(Path::toString).forEach(names::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    return names;
  }
}
