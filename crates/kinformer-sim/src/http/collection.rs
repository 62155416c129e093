//! DELETE on a collection (`deletecollection`), as kube-apiserver's generic store serves it: the
//! objects a list with the same options finds are deleted one by one, each as a single DELETE
//! with the request's `DeleteOptions` (preconditions, `dryRun`), and the answer is that list.

use bytes::Bytes;
use http::{Request, Response};

use super::media::Media;
use super::write::options::delete_options;
use super::{Params, Target, list};
use crate::body::SimBody;
use crate::shared::Shared;
use crate::status::ApiError;

/// Deletes what the list of `target` with `params` finds, in key order, and answers that list
/// (at the revision it was read, before the deletes) with 200.
///
/// An object deleted meanwhile is passed over. Any other failure (a precondition that does not
/// hold) ends the request with that error, the objects before it deleted: the API server's
/// default of one delete worker stops at its first error the same way.
pub(super) async fn delete(
    shared: &Shared,
    target: &Target,
    params: &Params,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let media = media.check(true)?;
    let opts = delete_options(req)?;
    let def = &target.def;
    let page = list::page(shared, def, target.namespace.as_deref(), params).await?;
    for record in &page.items {
        match shared.store.delete_with(
            def.storage(),
            &record.meta.namespace,
            &record.meta.name,
            &opts,
        ) {
            Err(e) if e.code != 404 => return Err(e),
            _ => {}
        }
    }
    list::list_response(def, &page, media)
}
