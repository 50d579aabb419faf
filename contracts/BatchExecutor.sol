// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title BatchExecutor
/// @notice Minimal ERC-7821 batch executor, meant as the EIP-7702 delegation target of the
/// headless wallet (EIP-5792 `wallet_sendCalls` with `atomicRequired`).
/// @dev Under EIP-7702 this code runs *as the EOA*: `address(this)` is the EOA and any storage
/// would be the EOA's. So there is deliberately no storage, no owner and no initializer; the only
/// authority is the EOA's own key, which it exercises by sending a transaction to itself.
contract BatchExecutor {
    /// @dev ERC-7821 call: target, value, data (ERC-7821 names the first field `target`; the ABI
    /// encoding is the same tuple `(address,uint256,bytes)`). `to == address(0)` means
    /// `address(this)`, as ERC-7821 specifies (a calldata-compression shortcut).
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    error Unauthorized();
    error UnsupportedExecutionMode();
    error InvalidOpData();
    error InsufficientGasForCall(uint256 index, uint256 gasLimit);

    /// @dev Upper bound of the gas spent between reading `gasleft()` and the callee starting, when
    /// no value is sent: cold access of the target (EIP-2929, 2600) plus cold access of the target's
    /// own delegate when the target is itself a 7702-delegated account (EIP-7702, 2600), plus the
    /// few opcodes between the check and the CALL. The CALL's argument memory is already allocated,
    /// and its output area is empty, so it pays no memory expansion.
    uint256 private constant CALL_RESERVE = 2600 + 2600 + 200;
    /// @dev Extra upper bound of the CALL's own charge when value is sent: value transfer (9000)
    /// plus creating the account when the target is empty (25000). The callee also gets the
    /// 2300 stipend on top of its gas limit then (Yellow Paper), which we do not count on.
    uint256 private constant VALUE_CALL_RESERVE = 9000 + 25000;

    /// @notice ERC-7821 `execute`: runs every call in order; if any fails, reverts the whole batch
    /// with that call's revert data unchanged.
    /// @param mode `0x01000000000000000000…` (batch, no opData) or `0x01000000000078210001…`
    /// (batch, optional opData).
    /// @param executionData `abi.encode(Call[] calls)` or, in the opData mode only,
    /// `abi.encode(Call[] calls, bytes opData)` with `opData = abi.encode(uint256[] gasLimits)`:
    /// one gas limit per call, 0 meaning "forward all gas". Empty opData means no limits.
    function execute(bytes32 mode, bytes calldata executionData) external payable {
        // The EOA calls itself. ERC-7821 recommends exactly this check when opData carries no
        // signature; ours only carries gas limits, so it never grants authority.
        if (msg.sender != address(this)) revert Unauthorized();
        uint256 id = _executionModeId(mode);
        if (id == 0) revert UnsupportedExecutionMode();

        Call[] memory calls;
        uint256[] memory gasLimits;
        // ERC-7821: in the opData mode opData is optional, `abi.encode(calls)` or
        // `abi.encode(calls, opData)`; the first word (the offset of `calls`) tells which:
        // 0x20 for the former, 0x40 for the latter. Same test as the ERC's reference code.
        if (id == 2 && executionData.length >= 0x40 && uint256(bytes32(executionData[:32])) >= 0x40) {
            bytes memory opData;
            (calls, opData) = abi.decode(executionData, (Call[], bytes));
            if (opData.length != 0) gasLimits = _decodeGasLimits(opData, calls.length);
        } else {
            calls = abi.decode(executionData, (Call[]));
        }

        for (uint256 i; i < calls.length; ++i) {
            Call memory c = calls[i];
            _call(i, c.to == address(0) ? address(this) : c.to, c.value, c.data, gasLimits.length == 0 ? 0 : gasLimits[i]);
        }
    }

    /// @notice ERC-7821 mode detection, true only for the two modes `execute` accepts.
    /// @dev `pure` rather than the interface's `view` (a stricter mutability, same selector).
    function supportsExecutionMode(bytes32 mode) external pure returns (bool) {
        return _executionModeId(mode) != 0;
    }

    /// @dev Lets the delegated EOA keep receiving ETH like a plain EOA.
    receive() external payable {}

    /// @dev 0: unsupported, 1: batch without opData, 2: batch with optional opData.
    /// ERC-7579 layout: callType(1) execType(1) unused(4) modeSelector(4) modePayload(22).
    /// Like ERC-7821's reference code, only callType (0x01, batch), execType (0x00, revert on
    /// failure) and modeSelector (0x00000000 or 0x78210001) are compared; the reserved bytes and
    /// the payload are ignored.
    function _executionModeId(bytes32 mode) private pure returns (uint256 id) {
        uint256 m = (uint256(mode) >> (22 * 8)) & 0xffff00000000ffffffff;
        if (m == 0x01000000000000000000) return 1;
        if (m == 0x01000000000078210001) return 2;
    }

    /// @dev opData must be the canonical `abi.encode(uint256[])` with one entry per call.
    function _decodeGasLimits(bytes memory opData, uint256 callCount) private pure returns (uint256[] memory) {
        if (opData.length < 0x40) revert InvalidOpData();
        (uint256 offset, uint256 count) = abi.decode(opData, (uint256, uint256));
        if (offset != 0x20 || count != callCount || opData.length != 0x40 + 0x20 * count) revert InvalidOpData();
        return abi.decode(opData, (uint256[]));
    }

    function _call(uint256 index, address to, uint256 value, bytes memory data, uint256 gasLimit) private {
        bool ok;
        if (gasLimit == 0) {
            assembly ("memory-safe") {
                ok := call(gas(), to, value, add(data, 0x20), mload(data), 0, 0)
            }
        } else {
            // EIP-150: the callee gets min(gasLimit, all but 1/64 of the gas left once the CALL has
            // paid its own costs). Being short would silently run the call with less than asked
            // (so it could fail, or behave differently, where the wallet's estimate said it would
            // not), hence refuse up front unless the callee is sure to get all of gasLimit.
            uint256 reserve = value == 0 ? CALL_RESERVE : CALL_RESERVE + VALUE_CALL_RESERVE;
            uint256 left = gasleft();
            // Unchecked (cannot underflow after `left < reserve`) keeps this short, so that the
            // gas spent from here to the CALL stays well inside the slack counted in CALL_RESERVE.
            unchecked {
                if (left < reserve || (left - reserve) - (left - reserve) / 64 < gasLimit) {
                    revert InsufficientGasForCall(index, gasLimit);
                }
            }
            assembly ("memory-safe") {
                ok := call(gasLimit, to, value, add(data, 0x20), mload(data), 0, 0)
            }
        }
        if (!ok) {
            // Bubble the callee's revert data unchanged, so the wallet can decode its error.
            assembly ("memory-safe") {
                let ret := mload(0x40)
                returndatacopy(ret, 0, returndatasize())
                revert(ret, returndatasize())
            }
        }
    }
}
