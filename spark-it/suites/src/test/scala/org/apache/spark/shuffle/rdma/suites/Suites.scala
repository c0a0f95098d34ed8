/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma.suites

// Spark's own suites, run on this run's shuffle manager (ManagerUnderTest). Each class has the
// simple name of the Spark suite it runs; the exclusion list is keyed by it.

/** Spark's ShuffleSuite with the sort shuffle's settings; SortShuffleSuite names "sort" itself. */
class SortShuffleSuite extends org.apache.spark.SortShuffleSuite with OnManagerUnderTest {
  override def beforeAll(): Unit = {
    super.beforeAll()
    conf.setAll(ManagerUnderTest.settings)
  }
}

/** ShuffleSuite with spark.shuffle.useOldFetchProtocol=true. */
class ShuffleOldFetchProtocolSuite
  extends org.apache.spark.ShuffleOldFetchProtocolSuite with OnManagerUnderTest {
  override def beforeAll(): Unit = {
    super.beforeAll()
    conf.setAll(ManagerUnderTest.settings)
  }
}

/** Spark's suite sets its manager class in its conf (the sort shuffle's by default). */
class ContextCleanerSuite extends org.apache.spark.ContextCleanerSuite with OnManagerUnderTest {
  override def beforeAll(): Unit = {
    conf.setAll(ManagerUnderTest.settings)
    super.beforeAll()
  }
}

class HostLocalShuffleReadingSuite
  extends org.apache.spark.shuffle.HostLocalShuffleReadingSuite with OnManagerUnderTest

class DistributedSuite extends org.apache.spark.DistributedSuite with OnManagerUnderTest

class FailureSuite extends org.apache.spark.FailureSuite with OnManagerUnderTest

class JobCancellationSuite extends org.apache.spark.JobCancellationSuite with OnManagerUnderTest

class MapOutputTrackerSuite extends org.apache.spark.MapOutputTrackerSuite with OnManagerUnderTest
