/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma.suites

import org.apache.spark.SparkFunSuite

/**
 * The shuffle manager a run of Spark's suites uses: the run's JVM gets it as the system property
 * `spark.shuffle.manager` (so every `new SparkConf()` of every suite sees it), either our
 * RdmaShuffleManager or Spark's stock `sort`, the control.
 */
object ManagerUnderTest {
  val Ours: String = "org.apache.spark.shuffle.rdma.RdmaShuffleManager"

  /** The manager of this run: our class name, or "sort" for the stock control. */
  def className: String =
    sys.props.getOrElse("spark.shuffle.manager",
      throw new IllegalStateException("the run sets no spark.shuffle.manager (ours or sort)"))

  /** "ours" or "stock": the side of the exclusion list that applies to this run. */
  def side: String = if (className == Ours) "ours" else "stock"

  /**
   * The run's manager and our settings (`spark.shuffle.rdma.*` JVM properties), for the suites
   * whose conf does not load the JVM's properties (`new SparkConf(false)`, ShuffleSuite's).
   */
  def settings: Seq[(String, String)] =
    ("spark.shuffle.manager" -> className) +:
      sys.props.toSeq.filter(_._1.startsWith("spark.shuffle.rdma.")).sorted
}

/**
 * Mixed into each of our subclasses of a Spark suite: skips the tests our exclusion list names
 * for this suite, this run's side and this Spark line, and fails the suite when the list names a
 * test the suite does not have (a renamed or removed test must not keep an exclusion alive).
 */
trait OnManagerUnderTest extends SparkFunSuite {

  /** Spark's name of the suite: ours have the same simple name as the Spark suite they extend. */
  protected def sparkSuiteName: String = getClass.getSimpleName

  // called by SparkFunSuite.test while the Spark suite's constructor registers its tests: a def
  // that reads only the Exclusions object, never a field of this trait (not initialised yet)
  override protected def excluded: Seq[String] =
    Exclusions.excluded(sparkSuiteName, ManagerUnderTest.side)

  override def beforeAll(): Unit = {
    val stale = excluded.filterNot(t => testNames.contains(s"$t (excluded)"))
    require(stale.isEmpty,
      s"${Exclusions.path} names tests that $sparkSuiteName does not have: ${stale.mkString("; ")}")
    super.beforeAll()
  }
}
