package io.rdmashuffle.config;

/** The prefix under which an engine's configuration holds our settings. */
public enum KeyStyle {
  /** SparkConf, spark-defaults.conf. */
  SPARK("spark.shuffle.rdma.", ConfigEntry.Scope.SPARK),
  /** Hadoop Configuration: yarn-site.xml (NodeManager service), mapred-site.xml (reducers). */
  HADOOP("mapreduce.shuffle.rdma.", ConfigEntry.Scope.HADOOP);

  private final String prefix;
  private final ConfigEntry.Scope scope;

  KeyStyle(String prefix, ConfigEntry.Scope scope) {
    this.prefix = prefix;
    this.scope = scope;
  }

  public String prefix() {
    return prefix;
  }

  ConfigEntry.Scope scope() {
    return scope;
  }
}
