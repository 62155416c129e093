//! Resolving a resource name the way kubectl does (plural, singular, short name or kind, with an
//! optional `.group` or `.version.group`) through the public discovery client, with kubectl's
//! discovery cache on disk.

use kinformer_core::ApiResource;
use kinformer_discovery::{Discovery, Error};
use kinformer_rest::Client;

use crate::error::CliError;

/// The resource `name` names on the cluster behind `client`.
pub(crate) async fn resolve(client: &Client, name: &str) -> Result<ApiResource, CliError> {
    Discovery::new(client.clone())
        .with_default_cache_dir()
        .resolve(name)
        .await
        .map_err(|e| match e {
            Error::NotFound { .. } => CliError::UnknownResource(name.to_owned()),
            other => CliError::Discovery(other),
        })
}
