//! Which stacks a run's two ends are: the same host stack on both ([`Same`]), or quinn and noq
//! facing each other ([`QuinnToNoq`], [`NoqToQuinn`]: `receiver = "noq"` on a quinn run, or
//! `receiver = "quinn"` on a noq run). The sender's stack runs the controller; the receiver's
//! only acknowledges.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use super::{Host, Noq, Quinn};

/// A run's client (sending) and server (receiving) stacks, and the pair that joins them.
pub trait Pairing: Send + Sync + 'static {
    /// The sending stack, which runs the controller.
    type Client: Host;
    /// The receiving stack.
    type Server: Host;
    /// A client/server pair over netsim or ns-3.
    type Pair: Send + Sync + 'static;

    /// The packet protection a run asking for `requested` gets: the same for a single stack;
    /// TLS for quinn facing noq (netsim's interop pairs keep real TLS).
    fn packet_protection(requested: netsim::PacketProtection) -> netsim::PacketProtection;
    /// One pair over netsim's `link`, protected by `Self::packet_protection(protection)`.
    fn netsim_pair(
        link: netsim::LinkConfig,
        seed: u64,
        client: Arc<<Self::Client as Host>::Transport>,
        server: Arc<<Self::Server as Host>::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<Self::Pair, String>;
    /// One pair over another medium (ns-3), protected as [`Pairing::netsim_pair`].
    fn medium_pair(
        medium: Box<dyn netsim::Medium>,
        client: Arc<<Self::Client as Host>::Transport>,
        server: Arc<<Self::Server as Host>::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<Self::Pair, String>;
    /// The pair's link.
    fn link(pair: &Self::Pair) -> &netsim::SimLink;
    /// Opens a connection: `(client side, server side)`; with `transport`, the client side
    /// runs it instead of the client endpoint's; with a non-zero `access_delay`, from a client
    /// endpoint of its own behind an access link of that one-way delay.
    #[allow(clippy::type_complexity)]
    fn connect(
        pair: &Self::Pair,
        transport: Option<Arc<<Self::Client as Host>::Transport>>,
        access_delay: Duration,
    ) -> impl Future<
        Output = Result<
            (
                <Self::Client as Host>::Connection,
                <Self::Server as Host>::Connection,
            ),
            String,
        >,
    > + Send;
}

/// Both ends on the host stack `H`.
pub struct Same<H>(PhantomData<H>);

impl<H: Host> Pairing for Same<H> {
    type Client = H;
    type Server = H;
    type Pair = H::Pair;

    fn packet_protection(requested: netsim::PacketProtection) -> netsim::PacketProtection {
        requested
    }

    fn netsim_pair(
        link: netsim::LinkConfig,
        seed: u64,
        client: Arc<H::Transport>,
        server: Arc<H::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<H::Pair, String> {
        H::netsim_pair(link, seed, client, server, protection)
    }

    fn medium_pair(
        medium: Box<dyn netsim::Medium>,
        client: Arc<H::Transport>,
        server: Arc<H::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<H::Pair, String> {
        H::medium_pair(medium, client, server, protection)
    }

    fn link(pair: &H::Pair) -> &netsim::SimLink {
        H::link(pair)
    }

    async fn connect(
        pair: &H::Pair,
        transport: Option<Arc<H::Transport>>,
        access_delay: Duration,
    ) -> Result<(H::Connection, H::Connection), String> {
        H::connect(pair, transport, access_delay).await
    }
}

/// Declares a mixed pairing over netsim's interop pair of the same name.
macro_rules! mixed {
    ($(#[$meta:meta])* $name:ident, $client:ty, $server:ty) => {
        $(#[$meta])*
        pub struct $name;

        impl Pairing for $name {
            type Client = $client;
            type Server = $server;
            type Pair = netsim::interop::$name;

            fn packet_protection(_: netsim::PacketProtection) -> netsim::PacketProtection {
                netsim::PacketProtection::Tls
            }

            fn netsim_pair(
                link: netsim::LinkConfig,
                seed: u64,
                client: Arc<<$client as Host>::Transport>,
                server: Arc<<$server as Host>::Transport>,
                _: netsim::PacketProtection,
            ) -> Result<Self::Pair, String> {
                netsim::interop::$name::builder(link, seed)
                    .client_transport(client)
                    .server_transport(server)
                    .build()
                    .map_err(|e| e.to_string())
            }

            fn medium_pair(
                medium: Box<dyn netsim::Medium>,
                client: Arc<<$client as Host>::Transport>,
                server: Arc<<$server as Host>::Transport>,
                _: netsim::PacketProtection,
            ) -> Result<Self::Pair, String> {
                netsim::interop::$name::with_medium(medium)
                    .client_transport(client)
                    .server_transport(server)
                    .build()
                    .map_err(|e| e.to_string())
            }

            fn link(pair: &Self::Pair) -> &netsim::SimLink {
                pair.link()
            }

            async fn connect(
                pair: &Self::Pair,
                transport: Option<Arc<<$client as Host>::Transport>>,
                access_delay: Duration,
            ) -> Result<
                (
                    <$client as Host>::Connection,
                    <$server as Host>::Connection,
                ),
                String,
            > {
                match transport {
                    _ if !access_delay.is_zero() => {
                        pair.connect_behind(access_delay, transport).await
                    }
                    Some(transport) => pair.connect_with(transport).await,
                    None => pair.connect().await,
                }
                .map_err(|e| e.to_string())
            }
        }
    };
}

mixed! {
    /// A quinn sender and a noq receiver.
    QuinnToNoq, Quinn, Noq
}

mixed! {
    /// A noq sender and a quinn receiver.
    NoqToQuinn, Noq, Quinn
}
