/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import io.rdmashuffle.tpcds.DatasetLayout;
import io.rdmashuffle.tpcds.Storage;
import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;

/**
 * Generates a TPC-DS dataset with the Java port of dsdgen ({@value DatasetLayout#GENERATOR}) in
 * Spark tasks and writes it as Parquet with Spark's TPC-DS schema ({@link TpcdsSchema}); reused
 * when its marker exists. Big tables are cut into chunks generated in parallel on the executors, so
 * on a cluster the dataset is written where the executors run.
 *
 * <p>Chunks follow the generator's own rule (its {@code Parallel.splitWork}): a table of fewer than
 * a million generator rows is one chunk, because some generators (catalog_sales' dates) derive
 * their starting point from that rule; bigger ones are cut into chunks of {@code chunkRows}.
 *
 * <p>Sales and returns are one generator: {@code store_sales} rows come with the {@code
 * store_returns} rows of the same orders (the generator's session names no single table, else the
 * returns come out empty), so each sales table is generated once, kept on the executors, and
 * written as two tables.
 */
public final class DataGenerator {
  /** Rows per generation chunk (one Spark task, one Parquet file) of a big table. */
  static final long DEFAULT_CHUNK_ROWS = 500_000;

  private DataGenerator() {}

  /**
   * Generates the dataset unless its marker exists.
   *
   * @return true when it was generated, false when reused
   */
  public static boolean generate(SparkSession spark, String data, double scale, long chunkRows)
      throws IOException {
    Storage storage = new Storage(spark.sparkContext().hadoopConfiguration());
    String marker = DatasetLayout.marker(data, scale);
    if (storage.exists(marker)) {
      System.out.println(
          "reusing TPC-DS SF"
              + DatasetLayout.scaleName(scale)
              + " at "
              + DatasetLayout.dir(data, scale));
      return false;
    }
    Map<String, StructType> schemas = TpcdsSchema.tables();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    StringBuilder summary = new StringBuilder();
    summary
        .append("generator=")
        .append(DatasetLayout.GENERATOR)
        .append('\n')
        .append("scale=")
        .append(DatasetLayout.scaleName(scale))
        .append('\n');
    long start = System.nanoTime();
    for (Table table : Table.getBaseTables()) {
      if (table.isChild()) {
        continue; // written with its parent
      }
      if (!schemas.containsKey(table.getName())) {
        System.out.println("skipping " + table.getName() + ": no TPC-DS query reads it");
        continue;
      }
      long t0 = System.nanoTime();
      long rows = session(scale, 1, 1).getScaling().getRowCount(table);
      int chunks = rows < 1_000_000 ? 1 : (int) Math.max(1, (rows + chunkRows - 1) / chunkRows);
      LongAccumulator parentRows = spark.sparkContext().longAccumulator(table.getName());
      LongAccumulator childRows =
          spark
              .sparkContext()
              .longAccumulator(table.hasChild() ? table.getChild().getName() : "none");
      JavaRDD<String[]> raw =
          jsc.parallelize(IntStream.rangeClosed(1, chunks).boxed().toList(), chunks)
              .flatMap(new GenerateChunk(table.getName(), scale, chunks));
      if (table.hasChild()) {
        // DISK_ONLY: a spilled MEMORY_AND_DISK_SER block is read back into one heap buffer, which
        // ran a 1 GiB executor out of memory on catalog_sales at SF1 (one chunk, 1.4 M rows)
        raw = raw.persist(StorageLevel.DISK_ONLY());
      }
      write(spark, raw, PARENT, table.getName(), schemas, data, scale, parentRows);
      if (table.hasChild()) {
        write(spark, raw, CHILD, table.getChild().getName(), schemas, data, scale, childRows);
        raw.unpersist(false);
      }
      String line =
          String.format(
              Locale.ROOT,
              "%s=%d rows%s in %d chunks, %.1f s",
              table.getName(),
              parentRows.value(),
              table.hasChild()
                  ? " (" + table.getChild().getName() + "=" + childRows.value() + " rows)"
                  : "",
              chunks,
              (System.nanoTime() - t0) / 1e9);
      System.out.println("generated " + line);
      summary.append(line).append('\n');
    }
    summary.append(
        String.format(
            Locale.ROOT,
            "seconds=%.1f%ncreated=%s%n",
            (System.nanoTime() - start) / 1e9,
            Instant.now()));
    storage.write(marker, summary.toString());
    return true;
  }

  static final String PARENT = "P";
  static final String CHILD = "C";

  private static void write(
      SparkSession spark,
      JavaRDD<String[]> raw,
      String tag,
      String name,
      Map<String, StructType> schemas,
      String data,
      double scale,
      LongAccumulator count) {
    StructType schema = schemas.get(name);
    if (schema == null) {
      throw new IllegalStateException("table=" + name + " has no schema in Spark's TPCDSSchema");
    }
    JavaRDD<Row> rows = raw.filter(r -> tag.equals(r[0])).map(new ToRow(name, schema, count));
    spark
        .createDataFrame(rows, schema)
        .write()
        .mode(SaveMode.Overwrite)
        .parquet(DatasetLayout.table(data, scale, name));
  }

  static Session session(double scale, int chunks, int chunk) {
    // no table named: a sales generator then also returns the rows of its returns table
    return Session.getDefaultSession()
        .withScale(scale)
        .withParallelism(chunks)
        .withChunkNumber(chunk);
  }

  /** Generates one chunk of a table: each row tagged parent or child, then its column values. */
  static final class GenerateChunk implements FlatMapFunction<Integer, String[]> {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final double scale;
    private final int chunks;

    GenerateChunk(String table, double scale, int chunks) {
      this.table = table;
      this.scale = scale;
      this.chunks = chunks;
    }

    @Override
    public Iterator<String[]> call(Integer chunk) {
      Iterator<List<List<String>>> rows =
          Results.constructResults(Table.getTable(table), session(scale, chunks, chunk)).iterator();
      return new Iterator<>() {
        private List<List<String>> group = List.of();
        private int next;

        @Override
        public boolean hasNext() {
          while (next >= group.size()) {
            if (!rows.hasNext()) {
              return false;
            }
            group = rows.next();
            next = 0;
          }
          return true;
        }

        @Override
        public String[] next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          List<String> values = group.get(next);
          String[] out = new String[values.size() + 1];
          out[0] = next == 0 ? PARENT : CHILD;
          for (int i = 0; i < values.size(); i++) {
            out[i + 1] = values.get(i);
          }
          next++;
          return out;
        }
      };
    }
  }

  /** The generator's text values of one row, typed by the table's Spark schema. */
  static final class ToRow implements Function<String[], Row> {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final StructType schema;
    private final LongAccumulator count;

    ToRow(String table, StructType schema, LongAccumulator count) {
      this.table = table;
      this.schema = schema;
      this.count = count;
    }

    @Override
    public Row call(String[] tagged) {
      int n = schema.fields().length;
      if (tagged.length - 1 != n) {
        throw new IllegalStateException(
            "table="
                + table
                + ": generator gave "
                + (tagged.length - 1)
                + " columns, schema has "
                + n);
      }
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        values[i] = convert(tagged[i + 1], schema.fields()[i].dataType());
      }
      count.add(1);
      return RowFactory.create(values);
    }
  }

  /** One generator value as the Java object Spark expects for {@code type}; null stays null. */
  static Object convert(String v, DataType type) {
    if (v == null) {
      return null;
    }
    if (type.equals(DataTypes.IntegerType)) {
      return Integer.valueOf(v);
    } else if (type.equals(DataTypes.LongType)) {
      return Long.valueOf(v);
    } else if (type instanceof DecimalType) {
      return new BigDecimal(v);
    } else if (type.equals(DataTypes.DateType)) {
      return java.sql.Date.valueOf(v);
    } else if (type.equals(DataTypes.DoubleType)) {
      return Double.valueOf(v);
    } else if (type.equals(DataTypes.StringType)) {
      return v;
    }
    throw new IllegalArgumentException("no conversion to " + type + " for value " + v);
  }

  /** Tables generated, for checks: every TPC-DS table name. */
  static List<String> tableNames() {
    List<String> out = new ArrayList<>();
    for (Table t : Table.getBaseTables()) {
      out.add(t.getName());
    }
    return out;
  }
}
