/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class TpcdsSchemaTest {
  @Test
  void sparksSchemaMatchesTheGeneratorsColumnsTableByTable() {
    // rows are written by position: the generator's columns must be Spark's, in order; the names
    // that differ (the generator's two typos, and the spec's older name of a customer column)
    // are listed here
    Map<String, StructType> spark = TpcdsSchema.tables();
    assertEquals(24, spark.size());
    List<String> renamed = new java.util.ArrayList<>();
    for (Table t : Table.getBaseTables()) {
      StructType s = spark.get(t.getName());
      if (s == null) {
        assertEquals("dbgen_version", t.getName());
        continue;
      }
      List<String> generator = Arrays.stream(t.getColumns()).map(Column::getName).toList();
      List<String> schema = Arrays.stream(s.fields()).map(StructField::name).toList();
      assertEquals(generator.size(), schema.size(), t.getName());
      for (int i = 0; i < schema.size(); i++) {
        if (!generator.get(i).equals(schema.get(i))) {
          renamed.add(generator.get(i) + "->" + schema.get(i));
        }
      }
    }
    assertEquals(
        List.of(
            "c_last_review_date_sk->c_last_review_date",
            "p_response_targe->p_response_target",
            "s_tax_precentage->s_tax_percentage"),
        renamed);
  }

  @Test
  void charAndVarcharColumnsAreStrings() {
    StructType customer = TpcdsSchema.tables().get("customer");
    assertEquals(DataTypes.StringType, customer.apply("c_customer_id").dataType());
    assertEquals(DataTypes.IntegerType, customer.apply("c_customer_sk").dataType());
  }

  @Test
  void generatorTextBecomesTypedValues() {
    assertEquals(42, DataGenerator.convert("42", DataTypes.IntegerType));
    assertEquals(
        new BigDecimal("12.30"), DataGenerator.convert("12.30", DataTypes.createDecimalType(7, 2)));
    assertEquals(
        java.sql.Date.valueOf("1998-01-02"),
        DataGenerator.convert("1998-01-02", DataTypes.DateType));
    assertEquals(
        "AAAAAAAABAAAAAAA", DataGenerator.convert("AAAAAAAABAAAAAAA", DataTypes.StringType));
    assertNull(DataGenerator.convert(null, DataTypes.IntegerType));
    assertThrows(
        IllegalArgumentException.class, () -> DataGenerator.convert("x", DataTypes.BinaryType));
  }

  @Test
  void aChunkYieldsSalesRowsTaggedWithTheirReturns() throws Exception {
    var it = new DataGenerator.GenerateChunk("store_sales", 0.01, 1).call(1);
    int parents = 0;
    int children = 0;
    int parentColumns = TpcdsSchema.tables().get("store_sales").fields().length;
    int childColumns = TpcdsSchema.tables().get("store_returns").fields().length;
    while (it.hasNext() && parents < 5000) {
      String[] r = it.next();
      if (DataGenerator.PARENT.equals(r[0])) {
        parents++;
        assertEquals(parentColumns + 1, r.length);
      } else {
        children++;
        assertEquals(childColumns + 1, r.length);
      }
    }
    assertEquals(5000, parents);
    assertEquals(true, children > 100, "returns come with sales: " + children);
  }

  @Test
  void errorsAreCanonicalByTheirDeepestCondition() {
    RuntimeException root = new IllegalStateException("boom");
    assertEquals(
        "java.lang.IllegalStateException",
        QueryRunner.canonicalError(new RuntimeException("wrapper", root)));
  }

  @Test
  void secretsAreNeverReported() {
    assertEquals(false, QueryRunner.reportable("spark.authenticate.secret"));
    assertEquals(false, QueryRunner.reportable("spark.hadoop.fs.s3a.access.key"));
    assertEquals(true, QueryRunner.reportable("spark.shuffle.manager"));
    assertEquals(true, QueryRunner.reportable("spark.sql.adaptive.enabled"));
  }
}
