// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPropAmm} from "../interfaces/IPropAmm.sol";
import {IRegistryGatedRouter} from "../interfaces/IRegistryGatedRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";

/// @title PropAmmAllowlist
/// @notice The propAMMs routers may call: each allowlisted pair with the one function a router may
/// call on it (`IPropAmm.swapExactIn`) and its configured token0 and token1. Managed by the
/// administrator of the RouterRegistry, read from the registry on every change, so that moving the
/// registry's administrator moves this role too.
/// @dev Pairs and tokens are kept disjoint: an address allowlisted as a pair is never a token of any
/// allowlisted pair, and the reverse. A router therefore never approves, or transfers through, a
/// contract it may also call as a venue. The pair list is bounded by what the administrator adds.
/// Routers keep a copy of `pairFilter` with their registry status (one warm slot on their hot path
/// instead of this contract's cold account and slot): every change makes the routers of the features
/// that call propAMMs (the registry's current and in-dwell previous router of each) re-read it through
/// their `sync()`, in the same transaction; the registry's activation does the same for a new router.
/// That re-read is best-effort: a router whose `sync()` fails never blocks a change (an emergency
/// removal above all); the failure is logged (`PropAmmPairFilterSyncFailed`) and that router keeps its
/// stale copy until its next successful `sync()` (permissionless). A stale copy keeps the pair rule
/// sound, because the copy only narrows what the router does and every venue call still asks this
/// contract: a bit the copy lacks (a pair added since) makes the router refuse that pair as a venue,
/// so using it as a token there calls no venue through which it also transfers; a bit the copy keeps (a
/// pair removed since) only costs a live `isPair` read for tokens, and the venue call is refused by the
/// live `tokensOf`. A removal therefore binds every router in its own transaction, synced or not; an
/// addition reaches a router only once it syncs.
contract PropAmmAllowlist {
    /// @dev token0 and the selector share a slot, so a router's check reads two slots.
    struct PairConfig {
        address token0;
        bytes4 selector;
        address token1;
    }

    /// @notice The only function routers call on a propAMM.
    bytes4 public constant SWAP_SELECTOR = IPropAmm.swapExactIn.selector;

    /// @notice The registry whose administrator manages this list.
    IRouterRegistry public immutable registry;
    /// @notice The registry features whose routers call propAMMs (2 taker-submitted, 3 gasless): their
    /// routers re-read `pairFilter` after every change (`_syncRouters`).
    uint128 public constant TAKER_FEATURE = 2;
    /// @notice See TAKER_FEATURE.
    uint128 public constant GASLESS_FEATURE = 3;
    /// @notice The gas each router's `sync()` is given (it reads the registry and this contract and
    /// writes one slot: about 40,000). A change needs this much in hand before each call
    /// (`PropAmmAllowlistSyncGasShort`), so no gas estimate can make a sync fail for want of gas and the
    /// change still go through; a router that burns it all costs only this.
    uint256 public constant ROUTER_SYNC_GAS = 150_000;
    /// @notice The most revert data of a failed router `sync()` that `PropAmmPairFilterSyncFailed` keeps.
    uint256 public constant MAX_SYNC_REASON_BYTES = 256;

    mapping(address pair => PairConfig) private _configs;
    /// @notice How many allowlisted pairs use `token` as token0 or token1.
    mapping(address token => uint256 pairs) public tokenUses;
    address[] private _pairs;
    mapping(address pair => uint256 indexPlusOne) private _indexOf;
    /// @notice A 256-bit filter of the allowlisted pairs: bit `uint8(uint160(pair))` is set while at
    /// least one allowlisted pair's address ends in that byte. A token whose bit is clear is no pair; a
    /// set bit only says "ask `isPair`". Routers read this one word per swap instead of one slot per token.
    uint256 public pairFilter;
    /// @dev How many allowlisted pairs set each bit of `pairFilter`, so removing one clears its bit
    /// only when no other pair shares it.
    mapping(uint256 bit => uint256 pairs) private _filterUses;

    /// @notice `pair` was allowlisted with `selector`, trading `token0` (zeroForOne's input) against `token1`.
    event PropAmmAdded(address indexed pair, bytes4 selector, address indexed token0, address indexed token1);
    /// @notice `pair` was taken off the allowlist, with its `selector`.
    event PropAmmRemoved(address indexed pair, bytes4 selector, address indexed token0, address indexed token1);
    /// @notice `router`'s `sync()` failed with `reason` (its revert data, cut to MAX_SYNC_REASON_BYTES;
    /// empty: out of gas) after a change of this list:
    /// the change stands, and the router keeps its previous copy of `pairFilter` until it syncs again.
    event PropAmmPairFilterSyncFailed(address indexed router, bytes reason);

    /// @notice The caller is not the registry's administrator.
    error PropAmmAllowlistUnauthorized(address caller);
    /// @notice The zero address was given.
    error PropAmmAllowlistZeroAddress();
    /// @notice The address holds no code (a pair or a token must be a deployed contract).
    error PropAmmAllowlistNotAContract(address account);
    /// @notice token0 and token1 are the same.
    error PropAmmAllowlistSameTokens(address token);
    /// @notice The pair is already allowlisted.
    error PropAmmAllowlistAlreadyListed(address pair);
    /// @notice The pair is not allowlisted.
    error PropAmmAllowlistNotListed(address pair);
    /// @notice The pair is one of its own tokens, or a token of another allowlisted pair.
    error PropAmmAllowlistPairIsToken(address pair);
    /// @notice The token is an allowlisted pair.
    error PropAmmAllowlistTokenIsPair(address token);
    /// @notice Less gas than a router's `sync()` is given was left for it (`gasLeft` < `needed`): send
    /// the change with a higher gas limit.
    error PropAmmAllowlistSyncGasShort(uint256 gasLeft, uint256 needed);

    /// @param registry_ The registry whose administrator manages the list.
    constructor(IRouterRegistry registry_) {
        if (address(registry_) == address(0)) revert PropAmmAllowlistZeroAddress();
        registry = registry_;
    }

    modifier onlyRegistryAdmin() {
        if (msg.sender != registry.admin()) revert PropAmmAllowlistUnauthorized(msg.sender);
        _;
    }

    /// @notice Allowlists `pair`'s `swapExactIn` with its configured tokens. Registry administrator only.
    /// @dev Then the propAMM features' routers copy the new filter, best-effort (`_syncRouters`). Refuses a pair that is one of its tokens or a token of another allowlisted pair, and a token
    /// that is an allowlisted pair.
    /// @param pair The propAMM.
    /// @param token0 Its configured token0.
    /// @param token1 Its configured token1.
    function add(address pair, address token0, address token1) external onlyRegistryAdmin {
        if (pair == address(0) || token0 == address(0) || token1 == address(0)) revert PropAmmAllowlistZeroAddress();
        if (token0 == token1) revert PropAmmAllowlistSameTokens(token0);
        if (_indexOf[pair] != 0) revert PropAmmAllowlistAlreadyListed(pair);
        if (pair == token0 || pair == token1 || tokenUses[pair] != 0) revert PropAmmAllowlistPairIsToken(pair);
        if (_indexOf[token0] != 0) revert PropAmmAllowlistTokenIsPair(token0);
        if (_indexOf[token1] != 0) revert PropAmmAllowlistTokenIsPair(token1);
        if (pair.code.length == 0) revert PropAmmAllowlistNotAContract(pair);
        if (token0.code.length == 0) revert PropAmmAllowlistNotAContract(token0);
        if (token1.code.length == 0) revert PropAmmAllowlistNotAContract(token1);
        _configs[pair] = PairConfig({token0: token0, selector: SWAP_SELECTOR, token1: token1});
        ++tokenUses[token0];
        ++tokenUses[token1];
        _pairs.push(pair);
        _indexOf[pair] = _pairs.length;
        uint256 bit = uint8(uint160(pair));
        ++_filterUses[bit];
        pairFilter |= 1 << bit;
        emit PropAmmAdded(pair, SWAP_SELECTOR, token0, token1);
        _syncRouters();
    }

    /// @notice Takes `pair` off the allowlist. Registry administrator only.
    /// @dev Binds every router at once (their venue call reads `tokensOf` live); their filter copies
    /// follow best-effort (`_syncRouters`): a router whose `sync()` fails never blocks a removal.
    /// @param pair The propAMM.
    function remove(address pair) external onlyRegistryAdmin {
        uint256 indexPlusOne = _indexOf[pair];
        if (indexPlusOne == 0) revert PropAmmAllowlistNotListed(pair);
        PairConfig memory config = _configs[pair];
        delete _configs[pair];
        --tokenUses[config.token0];
        --tokenUses[config.token1];
        // Swap and pop: the order of `pairs()` is not meaningful.
        address last = _pairs[_pairs.length - 1];
        _pairs[indexPlusOne - 1] = last;
        _indexOf[last] = indexPlusOne;
        _pairs.pop();
        delete _indexOf[pair];
        uint256 bit = uint8(uint160(pair));
        if (--_filterUses[bit] == 0) pairFilter &= ~(1 << bit);
        emit PropAmmRemoved(pair, config.selector, config.token0, config.token1);
        _syncRouters();
    }

    /// @notice The configured tokens of `pair` when (`pair`, `selector`) is allowlisted, else zeros.
    /// @dev The one read a router makes per propAMM hop.
    /// @param pair The propAMM.
    /// @param selector The function the router means to call.
    /// @return token0 The configured token0, or zero.
    /// @return token1 The configured token1, or zero.
    function tokensOf(address pair, bytes4 selector) external view returns (address token0, address token1) {
        PairConfig storage config = _configs[pair];
        // An unlisted pair's config is all zeros, so a zero selector still reads zero tokens.
        if (config.selector != selector) return (address(0), address(0));
        return (config.token0, config.token1);
    }

    /// @notice Whether `account` is an allowlisted pair (such an address can never be a routable token).
    /// @param account The address.
    /// @return Whether it is allowlisted as a pair.
    function isPair(address account) external view returns (bool) {
        return _indexOf[account] != 0;
    }

    /// @notice Every allowlisted pair, in no particular order.
    /// @return The pairs.
    function pairs() external view returns (address[] memory) {
        return _pairs;
    }

    /// @dev Makes the routers that may settle now (each propAMM feature's current router and its previous
    /// one inside the dwell window) copy the new filter, after every state change and event
    /// (checks-effects-interactions). Two features, two routers each: bounded. Best-effort, unlike the
    /// registry's own transitions: a router whose `sync()` fails is logged and skipped, so no router can
    /// block a change (see the contract's notes for why a stale copy stays safe).
    function _syncRouters() private {
        _syncFeature(TAKER_FEATURE);
        _syncFeature(GASLESS_FEATURE);
    }

    function _syncFeature(uint128 featureId) private {
        (address previous, address current,,) = registry.getFeature(featureId);
        _syncRouter(current);
        _syncRouter(previous);
    }

    /// @dev One router's `sync()` with ROUTER_SYNC_GAS. The gas is checked first (63/64 of what is left
    /// must cover it): otherwise a low gas limit would make the sync fail silently while the change
    /// went through.
    function _syncRouter(address router) private {
        if (router == address(0)) return;
        uint256 needed = ROUTER_SYNC_GAS + ROUTER_SYNC_GAS / 63 + 10_000;
        if (gasleft() < needed) revert PropAmmAllowlistSyncGasShort(gasleft(), needed);
        bytes4 selector = IRegistryGatedRouter.sync.selector;
        uint256 gasGiven = ROUTER_SYNC_GAS;
        uint256 maxReason = MAX_SYNC_REASON_BYTES;
        bool ok;
        bytes memory reason;
        // By hand: a `catch (bytes memory)` would copy however much revert data the router returns,
        // which could cost this change all its gas. At most MAX_SYNC_REASON_BYTES are kept.
        assembly ("memory-safe") {
            mstore(0, selector)
            ok := call(gasGiven, router, 0, 0, 4, 0, 0)
            if iszero(ok) {
                let length := returndatasize()
                if gt(length, maxReason) { length := maxReason }
                reason := mload(0x40)
                mstore(reason, length)
                returndatacopy(add(reason, 0x20), 0, length)
                mstore(0x40, add(add(reason, 0x20), and(add(length, 31), not(31))))
            }
        }
        if (!ok) emit PropAmmPairFilterSyncFailed(router, reason);
    }
}
