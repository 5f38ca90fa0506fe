//! A real S3-compatible server for the tests: s3s-fs (S3's HTTP API with
//! signature checks, objects kept as files), started once in this test
//! process on a free local port. Tests upload through the S3 API and run
//! kseg against it with the credentials in the environment.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;

const ACCESS_KEY: &str = "kseg-test-access";
const SECRET_KEY: &str = "kseg-test-secret-key";

/// The running server.
pub struct S3Server {
    endpoint: String,
    root: PathBuf,
    runtime: tokio::runtime::Runtime,
}

/// The one server of this test run.
pub fn server() -> &'static S3Server {
    static SERVER: OnceLock<S3Server> = OnceLock::new();
    SERVER.get_or_init(start)
}

fn start() -> S3Server {
    let root =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("s3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let service = {
        let mut builder =
            s3s::service::S3ServiceBuilder::new(s3s_fs::FileSystem::new(&root).unwrap());
        builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
        builder.build()
    };
    runtime.spawn(async move {
        let http =
            hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                continue;
            };
            let conn = http
                .serve_connection(hyper_util::rt::TokioIo::new(socket), service.clone())
                .into_owned();
            tokio::spawn(conn);
        }
    });
    S3Server {
        endpoint,
        root,
        runtime,
    }
}

impl S3Server {
    /// The environment kseg (and any S3 client) reaches this server with.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }

    /// A new, empty bucket.
    pub fn bucket(&self, name: &str) -> Bucket<'_> {
        let dir = self.root.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_allow_http(true)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .with_region("us-east-1")
            .with_bucket_name(name)
            .build()
            .unwrap();
        Bucket {
            server: self,
            name: name.to_string(),
            store: Arc::new(store),
        }
    }

    /// Runs kseg with `args` against this server.
    pub fn kseg<S: AsRef<std::ffi::OsStr>>(&self, args: impl IntoIterator<Item = S>) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kseg"))
            .args(args)
            .envs(self.env())
            .output()
            .expect("kseg runs")
    }
}

/// A bucket of the server, written through the S3 API.
pub struct Bucket<'s> {
    server: &'s S3Server,
    name: String,
    store: Arc<dyn ObjectStore>,
}

impl Bucket<'_> {
    /// Stores `bytes` under `key`.
    pub fn put(&self, key: &str, bytes: Vec<u8>) {
        self.server
            .runtime
            .block_on(self.store.put(&Path::from(key), bytes.into()))
            .unwrap_or_else(|e| panic!("PUT {key}: {e}"));
    }

    /// The `s3://` URL of `key`.
    pub fn url(&self, key: &str) -> String {
        format!("s3://{}/{key}", self.name)
    }
}
