// TEST FIXTURE, not part of dptext: local stand-ins for names the Databricks runtime predefines in every
// Scala notebook, so that NotebooksTest can run notebooks/ unchanged against local Spark.
// `spark` and `databricksSecretsForTests` ("scope/key" -> value, the simulated workspace's secret
// scopes) are bound by the test before this runs.

/** Databricks' dbutils, reduced to the secrets API the notebooks use. */
object dbutils {
  object secrets {
    def get(scope: String, key: String): String =
      Option(databricksSecretsForTests.get(s"$scope/$key")).getOrElse(
        throw new IllegalArgumentException(s"Secret does not exist with scope: $scope and key: $key"))
  }
}

/** Databricks renders a table; locally the rows go to stdout. */
def display(ds: org.apache.spark.sql.Dataset[_]): Unit = ds.show(50, false)
