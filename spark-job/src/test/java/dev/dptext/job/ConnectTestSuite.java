package dev.dptext.job;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * Every Connect test class of this module ({@code Connect*Test}), run together in ONE test JVM: Surefire
 * runs two test JVMs at once and hands out test classes as they come, so without this each JVM would start
 * a Connect server of its own (a JVM, seconds of start-up and warm-up). The pom runs this suite in place of
 * the classes it selects; {@code -Dtest=ConnectJobTest} still runs one class alone.
 */
@Suite
@SelectPackages("dev.dptext")
@IncludeClassNamePatterns("^.*\\.Connect[A-Za-z]*Test$")
class ConnectTestSuite {}
