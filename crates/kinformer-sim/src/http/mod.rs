//! The HTTP front: routing, authentication, fault checks and the request log.

mod aggregated;
mod collection;
mod control;
mod discovery;
mod list;
mod media;
mod openapi;
mod params;
mod review;
mod scale;
mod subresources;
pub(crate) mod table;
mod watch;
mod write;

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};

pub(crate) use media::{Encoding, Form, Media, has_protobuf};
pub(crate) use openapi::conditional::DocumentDates;
pub(crate) use params::{Params, decode};

use crate::body::SimBody;
use crate::faults::FaultKind;
use crate::resource::{ResourceDef, Verbs};
use crate::shared::Shared;
use crate::status::ApiError;
use crate::write_rules;

/// Serves one request whose body has been read.
pub(crate) async fn handle(shared: Arc<Shared>, req: Request<Bytes>) -> Response<SimBody> {
    let method = req.method().clone();
    let path_and_query = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let gzip = shared.config.gzip && accepts_gzip(req.headers());
    let resp = if req.uri().path().starts_with("/_control/") {
        control::handle(&shared, req).await
    } else {
        match route(&shared, req).await {
            Ok(resp) => resp,
            Err(e) => e.into_response(),
        }
    };
    if !path_and_query.starts_with("/_control/") {
        shared.log_request(method.as_str(), &path_and_query, resp.status().as_u16());
    }
    if gzip { compress(resp) } else { resp }
}

/// Non-watch responses above this size are gzipped for clients that accept it (APIResponseCompression).
const GZIP_THRESHOLD: usize = 128 * 1024;

/// Whether the request's `Accept-Encoding` names gzip.
fn accepts_gzip(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|enc| {
            enc.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("gzip"))
        })
}

fn compress(resp: Response<SimBody>) -> Response<SimBody> {
    compress_above(resp, GZIP_THRESHOLD)
}

/// `resp` gzipped when its body is longer than `threshold` and not already encoded.
fn compress_above(resp: Response<SimBody>, threshold: usize) -> Response<SimBody> {
    if resp.headers().contains_key(header::CONTENT_ENCODING) {
        return resp;
    }
    let Some(body) = resp.body().as_full().filter(|b| b.len() > threshold) else {
        return resp;
    };
    // The apiserver compresses at gzip's fastest level.
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 4),
        flate2::Compression::fast(),
    );
    if std::io::Write::write_all(&mut enc, body).is_err() {
        return resp;
    }
    let Ok(gz) = enc.finish() else {
        return resp;
    };
    let (mut parts, _) = resp.into_parts();
    parts.headers.insert(
        header::CONTENT_ENCODING,
        http::HeaderValue::from_static("gzip"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, SimBody::full(gz))
}

/// Where an API path points.
#[derive(Debug)]
struct Target {
    def: Arc<ResourceDef>,
    namespace: Option<String>,
    name: Option<String>,
    /// `status` or `scale` for `/status` or `/scale`; other subresources are not served.
    subresource: Option<String>,
    legacy_watch: bool,
}

async fn route(shared: &Arc<Shared>, req: Request<Bytes>) -> Result<Response<SimBody>, ApiError> {
    let path = req.uri().path().to_owned();
    if matches!(path.as_str(), "/healthz" | "/readyz" | "/livez") {
        let mut resp = Response::new(SimBody::full("ok"));
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return Ok(resp);
    }
    authenticate(shared, &req)?;
    if let Some(resp) = openapi::serve(shared, &req) {
        return resp;
    }
    // Discovery negotiates its own forms (the aggregated one among them).
    if let Some(resp) = discovery::serve(shared, &path, req.headers()) {
        return resp;
    }
    let target = parse_path(shared, &path)?;
    let media = media::negotiate(req.headers(), &target.def)?;
    if media.encoding == Encoding::Protobuf {
        // Someone reads protobuf: from now on each revision is encoded as it is written.
        shared.store.start_protobuf();
    }
    // Errors from here on are answered in the negotiated encoding, as the API server answers them.
    serve(shared, req, target, media)
        .await
        .map_err(|e| e.encoded(media.encoding))
}

/// Serves a request to a resource path in the representation `media`.
async fn serve(
    shared: &Arc<Shared>,
    req: Request<Bytes>,
    target: Target,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let mut params = Params::parse(req.uri().query());
    params.watch |= target.legacy_watch;
    if let Some(err) = params.error.take() {
        return Err(ApiError::bad_request(err));
    }
    if let Some(sub) = target.subresource.as_deref()
        && subresources::answered_here(sub)
    {
        return subresources::serve(shared, &target, &req, media);
    }
    let scale = target.subresource.as_deref() == Some("scale");
    // A collection delete needs the collection of one namespace (or a cluster-scoped one); the
    // all-namespaces path serves only list and watch.
    let collection_delete = write_rules::serves_delete_collection(&target.def)
        && (target.namespace.is_some() || !target.def.namespaced);
    let verb = match (req.method(), &target.name, params.watch) {
        // `/scale` serves get, update and patch, whatever the query says.
        (&Method::GET, _, _) if scale => "get",
        (&Method::GET, _, true) => "watch",
        (&Method::GET, Some(_), false) => "get",
        (&Method::GET, None, false) => "list",
        (&Method::POST, None, _) => "create",
        (&Method::PUT, Some(_), _) => "update",
        (&Method::PATCH, Some(_), _) => "patch",
        (&Method::DELETE, Some(_), _) if !scale => "delete",
        (&Method::DELETE, None, _) if collection_delete => "deletecollection",
        _ => return Err(method_not_allowed()),
    };
    if !target.def.verbs.allows(verb) {
        return Err(method_not_allowed());
    }
    // Tables are printed for lists, gets and watches, their rows carrying their objects as
    // `includeObject` says; anything else answers its objects.
    let media = match media.form {
        Form::Table(_) if scale || !matches!(verb, "list" | "get" | "watch") => Media::JSON,
        Form::Table(_) => Media {
            form: Form::Table(table::Include::parse(params.include_object.as_deref())?),
            ..media
        },
        _ => media,
    };
    // Faults can single out continue pages; the request is served as a list either way.
    let fault_verb = if verb == "list" && params.continue_token.is_some() {
        "continue"
    } else {
        verb
    };
    let triggered = shared
        .faults
        .check(fault_verb, &target.def.id, &target.def.plural);
    if !triggered.delay.is_zero() {
        tokio::time::sleep(triggered.delay).await;
    }
    let mut watch_fault = None;
    match triggered.action {
        None => {}
        Some(FaultKind::Status {
            code,
            retry_after,
            plain_text,
            message,
        }) => {
            let mut e = if code == 410 && verb == "list" {
                list::expired_error(&params)
            } else {
                ApiError::for_code(code, message)
            };
            if let Some(secs) = retry_after {
                e = e.with_retry_after(secs);
            }
            e.plain_text = plain_text;
            return Err(e);
        }
        Some(FaultKind::TooLarge) => {
            let current = shared.store.revision();
            return Err(ApiError::too_large(current + 1, current));
        }
        Some(other) => watch_fault = Some(other),
    }
    let ns = target.namespace.as_deref();
    if scale {
        return match verb {
            "get" => scale::get(shared, &target),
            "update" => scale::update(shared, &target, &req),
            _ => scale::patch(shared, &target, &req),
        };
    }
    match verb {
        "watch" => {
            watch::serve(
                shared,
                &target.def,
                ns,
                target.name.as_deref(),
                params,
                watch_fault,
                media,
            )
            .await
        }
        "list" => list::serve(shared, &target.def, ns, &params, media).await,
        "get" if media.table().is_some() => table::get(shared, &target, media),
        "get" => write::get(shared, &target, media),
        "create" if target.def.verbs == Verbs::CreateOnly => {
            review::create(shared, &target, &req, media)
        }
        "create" => write::create(shared, &target, &req, media),
        "update" => write::update(shared, &target, &req, media),
        "patch" => write::patch(shared, &target, &req, media),
        "deletecollection" => collection::delete(shared, &target, &params, &req, media).await,
        _ => write::delete(shared, &target, &req, media),
    }
}

pub(super) fn method_not_allowed() -> ApiError {
    ApiError::new(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
    )
}

fn authenticate(shared: &Shared, req: &Request<Bytes>) -> Result<(), ApiError> {
    let Some(token) = &shared.config.token else {
        return Ok(());
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if given == Some(token.as_str()) {
        Ok(())
    } else {
        Err(ApiError::new(401, "Unauthorized", "Unauthorized"))
    }
}

/// Resolves `/api/v1/...` and `/apis/{group}/{version}/...` to a resource, namespace and name.
fn parse_path(shared: &Shared, path: &str) -> Result<Target, ApiError> {
    let not_found = || {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    };
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, mut rest) = match segs.as_slice() {
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return Err(ApiError::page_not_found()),
    };
    let mut legacy_watch = false;
    if rest.first() == Some(&"watch") {
        legacy_watch = true;
        rest = &rest[1..];
    }
    let registry = shared.registry();
    // A group version nothing serves has no handler: the plain-text 404, not a Status.
    let served = |d: &Arc<ResourceDef>| d.group == group && d.version == version;
    if !registry.all().iter().any(served) {
        return Err(ApiError::page_not_found());
    }
    let find = |plural: &str| registry.by_path(group, version, plural);
    let target = |def: Arc<ResourceDef>, namespace: Option<&str>, name: Option<&str>| Target {
        def,
        namespace: namespace.map(str::to_owned),
        name: name.map(decode),
        subresource: None,
        legacy_watch,
    };
    let with_sub = |mut t: Target, sub: &str| {
        if crate::write_rules::serves_subresource(&t.def, sub) && !legacy_watch {
            t.subresource = Some(sub.to_owned());
            Ok(t)
        } else {
            Err(not_found())
        }
    };
    // `/namespaces/{ns}/{plural}...` names a namespaced collection; `/namespaces/{ns}[/{sub}]` the
    // namespace object itself.
    if let ["namespaces", ns, plural, tail @ ..] = rest
        && let Some(def) = find(plural).filter(|d| d.namespaced)
    {
        return match tail {
            [] => Ok(target(def, Some(ns), None)),
            [name] => Ok(target(def, Some(ns), Some(name))),
            [name, sub] => with_sub(target(def, Some(ns), Some(name)), sub),
            _ => Err(not_found()),
        };
    }
    match rest {
        [plural] => find(plural)
            .map(|d| target(d, None, None))
            .ok_or_else(not_found),
        [plural, name] => find(plural)
            .filter(|d| !d.namespaced)
            .map(|d| target(d, None, Some(name)))
            .ok_or_else(not_found),
        [plural, name, sub] => find(plural)
            .filter(|d| !d.namespaced)
            .ok_or_else(not_found)
            .and_then(|d| with_sub(target(d, None, Some(name)), sub)),
        _ => Err(not_found()),
    }
}
