package org.apache.spark.sql;

/** A shim: the name the Spark Connect client's public API links against, with nothing in it (see pom.xml). */
public class SparkSessionExtensions {}
