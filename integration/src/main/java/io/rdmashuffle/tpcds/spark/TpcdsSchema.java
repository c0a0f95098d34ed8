/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.execution.benchmark.TPCDSSchemaHelper$;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VarcharType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The 24 TPC-DS tables with the columns Spark's own TPC-DS suites declare ({@code TPCDSSchema} in
 * the spark-sql test-jar, read through {@code TPCDSSchemaHelper}). CHAR(n) and VARCHAR(n) become
 * STRING: Parquet has no such types, and both sides of a comparison read the same files.
 */
final class TpcdsSchema {
  private TpcdsSchema() {}

  /** Table name to schema, sorted by name. */
  static Map<String, StructType> tables() {
    Map<String, StructType> out = new TreeMap<>();
    Map<String, StructType> spark =
        CollectionConverters.asJava(TPCDSSchemaHelper$.MODULE$.getTableColumns());
    for (Map.Entry<String, StructType> e : spark.entrySet()) {
      out.put(e.getKey(), plain(e.getValue()));
    }
    return out;
  }

  private static StructType plain(StructType s) {
    StructField[] fields = s.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      StructField f = fields[i];
      if (f.dataType() instanceof CharType || f.dataType() instanceof VarcharType) {
        fields[i] = new StructField(f.name(), DataTypes.StringType, f.nullable(), Metadata.empty());
      }
    }
    return new StructType(fields);
  }
}
