/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.tpcds.QueryCatalog.Query;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueryCatalogTest {
  @Test
  void sparksTpcdsFolderHoldsAll103QueriesInNaturalOrder() {
    List<Query> all = QueryCatalog.set(QueryCatalog.TPCDS);
    assertEquals(103, all.size());
    List<String> ids = all.stream().map(Query::id).toList();
    assertEquals(List.of("q1", "q2", "q3"), ids.subList(0, 3));
    assertEquals("q99", ids.get(102));
    int a = ids.indexOf("q14a");
    assertEquals("q14b", ids.get(a + 1));
    assertEquals("q15", ids.get(a + 2));
    assertTrue(all.get(0).sql().toUpperCase().contains("SELECT"));
  }

  @Test
  void theV27SetIsSelectableAndNamedApart() {
    List<Query> v27 = QueryCatalog.set(QueryCatalog.TPCDS_V27);
    assertTrue(v27.size() >= 30, "size " + v27.size());
    assertTrue(v27.stream().allMatch(q -> q.id().endsWith("-v2.7")));
    List<Query> both = QueryCatalog.select("tpcds,tpcds-v2.7.0", "all");
    assertEquals(103 + v27.size(), both.size());
  }

  @Test
  void selectTakesIdsInTheGivenOrder() {
    List<Query> q = QueryCatalog.select("tpcds,tpcds-v2.7.0", "q90, q1,q14a-v2.7,q5a");
    assertEquals(List.of("q90", "q1", "q14a-v2.7", "q5a-v2.7"), q.stream().map(Query::id).toList());
    assertEquals("tpcds-v2.7.0/q14a.sql", q.get(2).resource());
  }

  @Test
  void unknownQueriesAndSetsAreRejectedByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QueryCatalog.select("tpcds", "q1,q100"));
    assertTrue(e.getMessage().contains("q100"));
    assertThrows(IllegalArgumentException.class, () -> QueryCatalog.set("tpch"));
  }

  @Test
  void datasetLayoutNamesTheScale() {
    assertEquals("0.1", DatasetLayout.scaleName(0.1));
    assertEquals("1", DatasetLayout.scaleName(1.0));
    assertEquals("/d/sf10/store_sales", DatasetLayout.table("/d", 10, "store_sales"));
    assertEquals("hdfs://nn/t/sf1/_TPCDS_DATASET", DatasetLayout.marker("hdfs://nn/t/", 1));
    assertThrows(IllegalArgumentException.class, () -> DatasetLayout.scaleName(0));
  }

  @Test
  void argsReadRepeatedAndEqualsFormsAndRejectUnknownOnes() {
    Args a =
        new Args(
            new String[] {"x", "--scale", "0.1", "--conf", "a=1", "--conf=b=2", "--oops", "1"}, 1);
    assertEquals(0.1, a.getDouble("scale", 1), 0);
    assertEquals(List.of("a=1", "b=2"), a.all("conf"));
    assertEquals("2", a.pairs("conf").get("b"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, a::done);
    assertTrue(e.getMessage().contains("--oops"));
    assertThrows(IllegalArgumentException.class, () -> new Args(new String[] {"--reps"}, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Args(new String[] {"--reps", "x"}, 0).getInt("reps", 1));
  }
}
