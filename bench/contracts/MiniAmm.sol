// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The two calls the pair makes on its tokens (BenchToken has both).
interface IPairToken {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// A minimal constant-product pair of two ERC20 tokens for the fork benchmark: a swap reads and writes the
/// storage of three contracts (the pair's reserves, both tokens' balances and one allowance), the state a fork
/// has to fetch. Liquidity is added, never withdrawn, and no share token is minted: the benchmark only needs a
/// pool to swap against.
contract MiniAmm {
    /// Out of 1000: the input kept by the pool, 0.3% as in Uniswap v2.
    uint256 private constant FEE_PER_MILLE = 3;

    IPairToken public immutable tokenA;
    IPairToken public immutable tokenB;
    uint256 private reserveA;
    uint256 private reserveB;

    event Sync(uint256 reserveA, uint256 reserveB);
    event Swap(address indexed sender, address indexed tokenIn, uint256 amountIn, uint256 amountOut, address indexed to);

    error SameToken();
    error UnknownToken(address token);
    error ZeroAmount();
    error InsufficientOutput(uint256 amountOut, uint256 minOut);
    error TransferFailed();

    constructor(IPairToken a, IPairToken b) {
        if (address(a) == address(b)) revert SameToken();
        tokenA = a;
        tokenB = b;
    }

    function getReserves() external view returns (uint256, uint256) {
        return (reserveA, reserveB);
    }

    /// Takes both amounts from the caller (who approved them) into the pool.
    function addLiquidity(uint256 amountA, uint256 amountB) external {
        if (amountA == 0 || amountB == 0) revert ZeroAmount();
        _pull(tokenA, amountA);
        _pull(tokenB, amountB);
        reserveA += amountA;
        reserveB += amountB;
        emit Sync(reserveA, reserveB);
    }

    /// The amount out for `amountIn` against reserves `reserveIn`/`reserveOut`: x·y = k on the input after the fee.
    function quote(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) public pure returns (uint256) {
        uint256 inAfterFee = amountIn * (1000 - FEE_PER_MILLE);
        return (inAfterFee * reserveOut) / (reserveIn * 1000 + inAfterFee);
    }

    /// Takes `amountIn` of `tokenIn` from the caller and sends the other token's quote to `to`, at least `minOut`.
    function swap(address tokenIn, uint256 amountIn, uint256 minOut, address to) external returns (uint256 amountOut) {
        bool aIn = tokenIn == address(tokenA);
        if (!aIn && tokenIn != address(tokenB)) revert UnknownToken(tokenIn);
        if (amountIn == 0) revert ZeroAmount();
        (uint256 reserveIn, uint256 reserveOut) = aIn ? (reserveA, reserveB) : (reserveB, reserveA);
        amountOut = quote(amountIn, reserveIn, reserveOut);
        if (amountOut == 0 || amountOut < minOut) revert InsufficientOutput(amountOut, minOut);

        _pull(IPairToken(tokenIn), amountIn);
        if (aIn) {
            reserveA = reserveIn + amountIn;
            reserveB = reserveOut - amountOut;
        } else {
            reserveB = reserveIn + amountIn;
            reserveA = reserveOut - amountOut;
        }
        if (!(aIn ? tokenB : tokenA).transfer(to, amountOut)) revert TransferFailed();
        emit Swap(msg.sender, tokenIn, amountIn, amountOut, to);
        emit Sync(reserveA, reserveB);
    }

    function _pull(IPairToken token, uint256 amount) private {
        if (!token.transferFrom(msg.sender, address(this), amount)) revert TransferFailed();
    }
}
