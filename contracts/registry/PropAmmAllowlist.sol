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
    /// @dev Refuses a pair that is one of its tokens or a token of another allowlisted pair, and a token
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
    /// (checks-effects-interactions). Two features, two routers each: bounded. A router whose `sync()`
    /// reverts fails the change, as the registry's own transitions do: a filter the routers ignore
    /// would be worse than a change that visibly fails.
    function _syncRouters() private {
        _syncFeature(TAKER_FEATURE);
        _syncFeature(GASLESS_FEATURE);
    }

    function _syncFeature(uint128 featureId) private {
        (address previous, address current,,) = registry.getFeature(featureId);
        if (current != address(0)) IRegistryGatedRouter(current).sync();
        if (previous != address(0)) IRegistryGatedRouter(previous).sync();
    }
}
