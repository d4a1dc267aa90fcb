/// The engine's version: the package's, in `geofence --version` and in `CHANGELOG.md`.
///
/// Versions are `0.x.y` while the API settles: a change users of the library or the CLI see
/// raises x, and is listed in the changelog.
public enum GeofenceEngineVersion {
    /// The version, as `major.minor.patch`.
    public static let current = "0.2.0"
}
